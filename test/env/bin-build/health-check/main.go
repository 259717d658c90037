// health-check computes, for each Kubernetes object it reads, what kstatus and Flux's CEL health checks say about
// it, with the real libraries (versions pinned in test/env/versions.env):
//
//   - kstatus: sigs.k8s.io/cli-utils/pkg/kstatus/status.Compute, and the same function of Flux's fork
//     github.com/fluxcd/cli-utils, which kustomize-controller runs for `wait: true`;
//   - flux: github.com/fluxcd/pkg/runtime/cel.StatusEvaluator, which kustomize-controller runs for
//     `spec.healthCheckExprs` (RFC 0009), given the expressions of --exprs (JSON: current, inProgress, failed).
//
// Input: one JSON object per line on stdin. Output: one JSON line per object, in order:
// {"kstatus":"InProgress","kstatusMessage":"...","fluxKstatus":"InProgress","flux":"InProgress","fluxError":""}.
// Built by test/env/bin-build/build.sh health-check; used by test/integration/recorded-kstatus.test.ts.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	fluxstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/kustomize"
	fluxcel "github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type result struct {
	Kstatus        string `json:"kstatus"`
	KstatusMessage string `json:"kstatusMessage"`
	FluxKstatus    string `json:"fluxKstatus"`
	Flux           string `json:"flux,omitempty"`
	FluxError      string `json:"fluxError,omitempty"`
}

func main() {
	exprsPath := flag.String("exprs", "", "JSON file with Flux healthCheckExprs (current, inProgress, failed)")
	flag.Parse()
	var evaluator *fluxcel.StatusEvaluator
	if *exprsPath != "" {
		raw, err := os.ReadFile(*exprsPath)
		if err != nil {
			fail(err)
		}
		var exprs kustomize.HealthCheckExpressions
		if err := json.Unmarshal(raw, &exprs); err != nil {
			fail(fmt.Errorf("%s: %w", *exprsPath, err))
		}
		if evaluator, err = fluxcel.NewStatusEvaluator(&exprs); err != nil {
			fail(err)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(in.Bytes(), &obj); err != nil {
			fail(err)
		}
		if err := out.Encode(evaluate(obj, evaluator)); err != nil {
			fail(err)
		}
	}
	if err := in.Err(); err != nil {
		fail(err)
	}
}

func evaluate(obj map[string]any, evaluator *fluxcel.StatusEvaluator) result {
	// Each library gets its own copy: Compute must not see what the other did.
	upstream, err := status.Compute(&unstructured.Unstructured{Object: deepCopy(obj)})
	if err != nil {
		fail(err)
	}
	fork, err := fluxstatus.Compute(&unstructured.Unstructured{Object: deepCopy(obj)})
	if err != nil {
		fail(err)
	}
	r := result{Kstatus: upstream.Status.String(), KstatusMessage: upstream.Message, FluxKstatus: fork.Status.String()}
	if evaluator != nil {
		flux, err := evaluator.Evaluate(context.Background(), &unstructured.Unstructured{Object: deepCopy(obj)})
		if err != nil {
			// kustomize-controller reports such an object as not ready, with this error.
			r.FluxError = err.Error()
		} else {
			r.Flux = flux.Status.String()
		}
	}
	return r
}

func deepCopy(obj map[string]any) map[string]any {
	return runtimeCopy(obj).(map[string]any)
}

// runtimeCopy copies a decoded JSON value; numbers become int64 where integral, as the API machinery decodes them.
func runtimeCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = runtimeCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = runtimeCopy(e)
		}
		return s
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
		return t
	default:
		return t
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "health-check:", err)
	os.Exit(1)
}

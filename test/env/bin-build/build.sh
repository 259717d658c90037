#!/usr/bin/env bash
# Builds (or finds in the cache) every binary the local test environment needs.
# Cached under ${ETCD_GITOPS_CACHE:-$HOME/.cache/etcd-gitops}/<component>-<version>/; rebuilt only when missing.
# Usage: build.sh [all|first|rest|etcd|kubernetes|etcd35|etcd36|etcd34|minio|containerd|kube-router|kube-state-metrics|registry|prometheus-operator-crds|node-packages|lua|health-check|prometheus|coredns|test-tools|gitops-packages]
#   all: first, then rest (npm test builds rest beside the tests: scripts/test.mjs)
#   etcd: the etcd tools our product image ships, for both its platforms, and skopeo (npm run image needs only these)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../versions.env
source "$here/../versions.env"
cache=${ETCD_GITOPS_CACHE:-$HOME/.cache/etcd-gitops}
mkdir -p "$cache"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0

log() { echo "[build $(date +%H:%M:%S)] $*" >&2; }

# The compiler flags of the tools that stand beside our product only in the tests (versions.env, TEST_TOOLS_BUILD):
# no optimizations, no inlining. Flux's source-controller, built cold on 2 cores: 166 s instead of 237 s.
test_tool_gcflags="all=-N -l"

# The first lines of a wrapper module's go.mod: module $1, the Go version of this machine's toolchain.
go_mod_head() {
  echo "module $1"
  echo
  echo "go $(go env GOVERSION | sed 's/^go//; s/\.[0-9]*$//')"
}

# Where the module cache holds module@version $2 (fetched first if missing): field $1 of `go mod download -json`,
# "Dir" (its files) or "GoMod" (its go.mod). Fails naming the module when the go command gives none.
module_path() {
  local field=$1 module=$2 json path
  json=$(GOFLAGS= go mod download -json "$module") || true
  path=$(sed -n "s/^[[:space:]]*\"$field\": \"\(.*\)\",\$/\1/p" <<<"$json")
  [ -n "$path" ] || { echo "go mod download gave no $field for $module: $(grep '"Error"' <<<"$json")" >&2; return 1; }
  echo "$path"
}

# Writes a wrapper go.mod that requires $1@$2 and replaces every "./staging" or relative replace
# in that module's own go.mod with the published tag $3 of each replaced module.
wrapper_module() {
  local dir=$1 mod=$2 ver=$3 staging_ver=$4
  mkdir -p "$dir"
  local gomod
  gomod=$(module_path GoMod "$mod@$ver") || exit 1
  {
    go_mod_head etcdgitops.local/build
    echo
    echo "require $mod $ver"
    echo
    # "k8s.io/api => ./staging/src/k8s.io/api" becomes "k8s.io/api => k8s.io/api v0.X.Y"
    grep -E '^\s*[^ ]+ => \./' "$gomod" | awk -v v="$staging_ver" '{print "replace " $1 " => " $1 " " v}'
  } >"$dir/go.mod"
}

# Every replace directive of the go.mod $1, as single "replace" lines for a wrapper module: a replace by a relative
# path (a submodule of the same repository, e.g. "./api" or "./gitops-engine") becomes its published tag $2.
replaces_of() {
  local gomod=$1 ver=$2
  awk -v v="$ver" '
    /^replace \($/ { block = 1; next }
    block && /^\)/ { block = 0; next }
    /^replace / { sub(/^replace /, ""); line = $0 }
    block { line = $0 }
    line != "" {
      sub(/[ \t]*\/\/.*$/, "", line)
      if (line ~ /=>/) {
        split(line, side, /[ \t]*=>[ \t]*/)
        gsub(/^[ \t]+/, "", side[1])
        if (side[2] ~ /^\.\.?\//) { split(side[1], from, /[ \t]+/); print "replace " from[1] " => " from[1] " " v }
        else print "replace " side[1] " => " side[2]
      }
      line = ""
    }' "$gomod"
}

build_kubernetes() {
  local out="$cache/kubernetes-$KUBERNETES_VERSION"
  local cmds=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy) cmd missing=0
  for cmd in "${cmds[@]}"; do [ -x "$out/$cmd" ] || missing=1; done
  [ "$missing" = 0 ] && return 0
  log "building Kubernetes $KUBERNETES_VERSION (several minutes on 2 cores the first time)"
  local work="$cache/src/kubernetes-$KUBERNETES_VERSION"
  local staging="v0.${KUBERNETES_VERSION#v1.}"
  wrapper_module "$work" k8s.io/kubernetes "$KUBERNETES_VERSION" "$staging"
  cat >"$work/tools.go" <<'GO'
//go:build tools

package build

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
)
GO
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$KUBERNETES_VERSION" | cut -d. -f2) -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$KUBERNETES_VERSION"
  (cd "$work" && go mod tidy -e >/dev/null 2>&1 || true)
  mkdir -p "$out.tmp"
  # Keep what an earlier build of this version left, so adding a command builds only that one.
  [ -d "$out" ] && cp -a "$out/." "$out.tmp/"
  local pkgs=()
  for cmd in "${cmds[@]}"; do [ -x "$out.tmp/$cmd" ] || pkgs+=("k8s.io/kubernetes/cmd/$cmd"); done
  # One go build for every command: their shared packages are loaded once, and the links run in parallel.
  (cd "$work" && go build -tags tools -trimpath -ldflags "$ldflags" -o "$out.tmp/" "${pkgs[@]}")
  log "built ${pkgs[*]##*/}"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

build_etcd() {
  local ver=$1 out="$cache/etcd-$1"
  [ -x "$out/etcd" ] && [ -x "$out/etcdctl" ] && [ -x "$out/etcdutl" ] && return 0
  log "building etcd $ver"
  local work="$cache/src/etcd-$ver"
  mkdir -p "$work"
  {
    go_mod_head etcdgitops.local/build
    echo
    echo "require ("
    echo "  go.etcd.io/etcd/v3 $ver"
    echo "  go.etcd.io/etcd/server/v3 $ver"
    echo "  go.etcd.io/etcd/etcdctl/v3 $ver"
    echo "  go.etcd.io/etcd/etcdutl/v3 $ver"
    echo ")"
  } >"$work/go.mod"
  cat >"$work/tools.go" <<'GO'
//go:build tools

package build

import (
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "go.etcd.io/etcd/etcdutl/v3"
	_ "go.etcd.io/etcd/server/v3"
)
GO
  (cd "$work" && go mod tidy -e >/dev/null 2>&1 || true)
  mkdir -p "$out.tmp"
  # One go build for the three commands; a directory -o names each after its package (server/v3 → server).
  (cd "$work" && go build -tags tools -trimpath -ldflags "-s -w" -o "$out.tmp/" \
    go.etcd.io/etcd/server/v3 go.etcd.io/etcd/etcdctl/v3 go.etcd.io/etcd/etcdutl/v3)
  mv "$out.tmp/server" "$out.tmp/etcd"
  rm -rf "$out" && mv "$out.tmp" "$out"
  log "built etcd $ver"
}

# etcdctl and etcdutl of etcd $1 for another architecture $2 (GOARCH), for that platform of our product image (its
# restore tools). etcd 3.4's etcdctl for it comes from Debian's package of that architecture (image/parts.ts).
build_etcd_tools_for() {
  local ver=$1 arch=$2 out="$cache/etcd-$1-linux-$2"
  [ -x "$out/etcdctl" ] && [ -x "$out/etcdutl" ] && return 0
  build_etcd "$ver"
  log "building etcdctl and etcdutl $ver for linux/$arch"
  local work="$cache/src/etcd-$ver"
  mkdir -p "$out.tmp"
  (cd "$work" && GOARCH="$arch" go build -tags tools -trimpath -ldflags "-s -w" -o "$out.tmp/" \
    go.etcd.io/etcd/etcdctl/v3 go.etcd.io/etcd/etcdutl/v3)
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# Our product image's other platform (a multi-architecture index: linux/amd64 and linux/arm64).
other_arch() { [ "$(go env GOARCH)" = arm64 ] && echo amd64 || echo arm64; }

build_etcd_tools_other_arch() {
  build_etcd_tools_for "$ETCD35_VERSION" "$(other_arch)"
  build_etcd_tools_for "$ETCD36_VERSION" "$(other_arch)"
}

build_minio() {
  local out="$cache/minio-$MINIO_VERSION"
  [ -x "$out/minio" ] && return 0
  log "building MinIO $MINIO_VERSION"
  mkdir -p "$out.tmp"
  GOBIN="$out.tmp" GOFLAGS= go install -trimpath -ldflags "-s -w" "github.com/minio/minio@$MINIO_VERSION"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# containerd 2.x (Debian's 1.6.20 is older than kubelet 1.31+ supports): containerd, its runc shim and ctr.
build_containerd() {
  local out="$cache/containerd-$CONTAINERD_VERSION"
  [ -x "$out/containerd" ] && [ -x "$out/containerd-shim-runc-v2" ] && [ -x "$out/ctr" ] && return 0
  log "building containerd $CONTAINERD_VERSION"
  mkdir -p "$out.tmp"
  local cmd
  for cmd in containerd containerd-shim-runc-v2 ctr; do
    GOBIN="$out.tmp" GOFLAGS= go install -trimpath -tags "no_btrfs no_devmapper no_zfs" \
      -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
      "github.com/containerd/containerd/v2/cmd/$cmd@$CONTAINERD_VERSION"
  done
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# kube-router's NetworkPolicy controller (--run-firewall alone: iptables and ipset, which this kernel has), the
# enforcer every node of the environment runs. Only inside the environment's own namespaces (ADR 0004).
build_kube_router() {
  local out="$cache/kube-router-$KUBE_ROUTER_VERSION"
  [ -x "$out/kube-router" ] && return 0
  log "building kube-router $KUBE_ROUTER_VERSION"
  mkdir -p "$out.tmp"
  GOBIN="$out.tmp" GOFLAGS= go install -trimpath -ldflags "-s -w" \
    "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# The OCI registry every environment's nodes pull from (distribution's `registry`), built from a wrapper whose main
# is distribution's own but links only the filesystem storage driver (no cloud drivers: a smaller, quicker build).
build_registry() {
  local out="$cache/registry-$DISTRIBUTION_VERSION"
  [ -x "$out/registry" ] && return 0
  log "building the distribution registry $DISTRIBUTION_VERSION"
  local work="$cache/src/registry-$DISTRIBUTION_VERSION"
  mkdir -p "$work"
  {
    go_mod_head etcdgitops.local/registry
    echo
    echo "require github.com/distribution/distribution/v3 $DISTRIBUTION_VERSION"
  } >"$work/go.mod"
  cat >"$work/main.go" <<'GO'
package main

import (
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	// As distribution's cmd/registry: a failing command has printed its error and exits non-zero itself.
	_ = registry.RootCmd.Execute()
}
GO
  (cd "$work" && go mod tidy >/dev/null)
  mkdir -p "$out.tmp"
  (cd "$work" && go build -trimpath -ldflags "-s -w" -o "$out.tmp/registry" .)
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# kube-state-metrics (CronJob and Job series for the backup alert, in the Prometheus e2e). The checksum database
# does not know v2.16.0 (its lookup answers 404; v2.17.0 is refused by the proxy), so the module is fetched without
# it and its hash checked against the one pinned in versions.env instead; its dependencies are checked as usual,
# against its go.sum and the checksum database. `go install module@version` also asks the proxy for the module's
# version list (403), so the command is built from the downloaded module's own directory.
build_kube_state_metrics() {
  local out="$cache/kube-state-metrics-$KUBE_STATE_METRICS_VERSION-$TEST_TOOLS_BUILD" json sum dir
  [ -x "$out/kube-state-metrics" ] && return 0
  log "building kube-state-metrics $KUBE_STATE_METRICS_VERSION ($TEST_TOOLS_BUILD)"
  json=$(GOFLAGS= GONOSUMDB=k8s.io/kube-state-metrics go mod download -json \
    "k8s.io/kube-state-metrics/v2@$KUBE_STATE_METRICS_VERSION")
  sum=$(sed -n 's/^\t"Sum": "\(.*\)",$/\1/p' <<<"$json")
  dir=$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$json")
  if [ "$sum" != "$KUBE_STATE_METRICS_SUM" ] || [ -z "$dir" ]; then
    echo "kube-state-metrics $KUBE_STATE_METRICS_VERSION: hash '$sum' (pinned: $KUBE_STATE_METRICS_SUM), directory '$dir'" >&2
    exit 1
  fi
  mkdir -p "$out.tmp"
  (cd "$dir" && GOFLAGS= CGO_ENABLED=0 go build -trimpath -gcflags "$test_tool_gcflags" -ldflags "-s -w" \
    -o "$out.tmp/kube-state-metrics" .)
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# The Prometheus Operator's CRDs (PodMonitor, ServiceMonitor, PrometheusRule) from its module on the proxy, so the
# monitoring objects our constructs synthesize are validated by a real API server against the real schemas.
PROMETHEUS_OPERATOR_CRDS="podmonitors servicemonitors prometheusrules"
fetch_prometheus_operator_crds() {
  local out="$cache/prometheus-operator-crds-$PROMETHEUS_OPERATOR_VERSION" name
  [ -f "$out/monitoring.coreos.com_prometheusrules.yaml" ] && return 0
  log "fetching the Prometheus Operator $PROMETHEUS_OPERATOR_VERSION CRDs"
  local dir
  dir=$(module_path Dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION") || exit 1
  mkdir -p "$out.tmp"
  for name in $PROMETHEUS_OPERATOR_CRDS; do
    cp "$dir/example/prometheus-operator-crd/monitoring.coreos.com_$name.yaml" "$out.tmp/"
  done
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# What real nodes need from Debian: runc, the CNI plugins, iptables/ipset/conntrack for kube-proxy, socat for the
# loopback forwards, gcc's static libc for the pause program, busybox for the test image.
node_packages() {
  apt_install runc containernetworking-plugins iptables ipset conntrack iproute2 util-linux socat libc6-dev gcc \
    busybox-static
}

apt_install() {
  local missing=()
  # "dpkg -s" also succeeds for a removed package whose config files remain
  # (state "rc"), so ask for the exact state.
  for pkg in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then s=; else s=sudo; fi
  $s apt-get update -qq && DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# What the GitOps tools need beside them, from Debian: git (Argo CD's repo-server and the environment's Git server,
# git http-backend), lighttpd (serves git http-backend over HTTP), redis-server (Argo CD's cache). Debian may start a
# system Redis and lighttpd on install; the environments start their own and never use those.
gitops_packages() {
  [ "$(dpkg-query -W -f='${Status}' redis-server 2>/dev/null)" = "install ok installed" ] &&
    [ "$(dpkg-query -W -f='${Status}' lighttpd 2>/dev/null)" = "install ok installed" ] && apt_install git && return 0
  apt_install git lighttpd redis-server
  (service redis-server stop; service lighttpd stop; pkill -x redis-server -u redis; pkill -x lighttpd -u www-data) \
    >/dev/null 2>&1 || true
}

build_etcd34() {
  apt_install etcd-server etcd-client
  local out="$cache/etcd-v$ETCD34_DEBIAN"
  local bin
  for bin in /usr/bin/etcd /usr/bin/etcdctl; do
    [ -x "$bin" ] || { echo "build.sh: $bin is missing after installing etcd-server and etcd-client" >&2; exit 1; }
  done
  mkdir -p "$out"
  # Debian's etcd 3.4 ships etcd and etcdctl; etcdctl 3.4 also does "snapshot restore".
  ln -sf /usr/bin/etcd "$out/etcd"
  ln -sf /usr/bin/etcdctl "$out/etcdctl"
  # Debian starts a system etcd on install; the test environment never uses it.
  (systemctl stop etcd 2>/dev/null || service etcd stop 2>/dev/null || pkill -x etcd -u etcd 2>/dev/null || true) >/dev/null 2>&1
}

# A command whose main.go lives in this directory ($1/main.go), built against the modules "path version" given after
# it into <cache>/$1-<versions joined by ->-<first 12 hex of the source's sha256>-$TEST_TOOLS_BUILD/$1 (every such
# command is a test tool): an edited main.go is a new directory, as test/env/binaries.ts (sourceBuiltBinary) names
# it.
build_source_main() {
  local name=$1 && shift
  local src="$here/$name/main.go" sum key="" dep
  sum=$(sha256sum "$src" | cut -c1-12)
  for dep in "$@"; do key="$key${dep#* }-"; done
  local out="$cache/$name-$key$sum-$TEST_TOOLS_BUILD"
  [ -x "$out/$name" ] && return 0
  log "building $name ($*; $TEST_TOOLS_BUILD)"
  local work="$cache/src/$name-$key$sum"
  mkdir -p "$work"
  {
    go_mod_head "etcdgitops.local/$name"
    echo
    echo "require ("
    for dep in "$@"; do echo "  $dep"; done
    echo ")"
  } >"$work/go.mod"
  cp "$src" "$work/main.go"
  (cd "$work" && go mod tidy >/dev/null)
  mkdir -p "$out.tmp"
  (cd "$work" && go build -trimpath -gcflags "$test_tool_gcflags" -ldflags "-s -w" -o "$out.tmp/$name" .)
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# CoreDNS (coredns/main.go) at COREDNS_VERSION, with the plugins the environment's Corefile uses. Built apart from
# the test tools: every environment with nodes runs it, so it is built with the binaries the first e2e files need,
# while the test tools build beside the tests (scripts/test.mjs).
build_coredns() {
  build_source_main coredns "github.com/coredns/coredns $COREDNS_VERSION"
}

# health-check (health-check/main.go): kstatus and Flux's CEL health checks over objects read as JSON, with the
# libraries of CLI_UTILS_VERSION and FLUX_RUNTIME_VERSION.
build_health_check() {
  build_source_main health-check "sigs.k8s.io/cli-utils $CLI_UTILS_VERSION" \
    "github.com/fluxcd/pkg/runtime $FLUX_RUNTIME_VERSION"
}

# cert-manager's CRDs, from the module whose controllers build_test_tools builds (cert-manager/main.go), for the TLS
# e2e (test/env/cert-manager.ts). The module requires Venafi's vcert, whose code the proxy refuses (403); the
# controllers built here do not import it, so only its go.mod is read.
fetch_cert_manager_crds() {
  local out="$cache/cert-manager-crds-$CERT_MANAGER_VERSION" dir
  [ -f "$out/cert-manager.io_certificates.yaml" ] && return 0
  dir=$(module_path Dir "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION") || exit 1
  mkdir -p "$out.tmp"
  cp "$dir"/deploy/crds/*.yaml "$out.tmp/"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# Argo CD's Application and AppProject CRDs and the scripts its image puts on the repo-server's PATH (the repo-server
# runs git-verify-wrapper.sh for every revision it reads), from the module build_test_tools builds Argo CD from, into
# <cache>/argocd-files-<version>.
fetch_argocd_files() {
  local out="$cache/argocd-files-$ARGOCD_VERSION" dir
  [ -f "$out/git-verify-wrapper.sh" ] && return 0
  dir=$(module_path Dir "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION") || exit 1
  mkdir -p "$out.tmp"
  cp "$dir/manifests/crds/application-crd.yaml" "$dir/manifests/crds/appproject-crd.yaml" "$out.tmp/"
  cp "$dir/hack/git-verify-wrapper.sh" "$dir/hack/gpg-wrapper.sh" "$out.tmp/"
  chmod 0755 "$out.tmp"/*.sh
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# Prometheus (the server, scraping and evaluating our alerts in the Prometheus e2e) and promtool (its rule checker
# and rule unit tester, for the alert rule tests), in one build: they share almost every package.
# remove_all_sd + enable_kubernetes_sd: Kubernetes service discovery only, the one our monitors need (another one,
# nomad's API client, is not on the module proxy). CGO_ENABLED=0: static, like the upstream release binaries.
# It stays out of build_test_tools: Argo CD requires github.com/gobwas/glob v1.0.0 and OpenTelemetry's confmap, which
# Prometheus imports, needs that path's v0.2.3 API (glob.Glob, gone in v1.0.0); one module cannot hold both.
build_prometheus() {
  local out="$cache/prometheus-$PROMETHEUS_VERSION-$TEST_TOOLS_BUILD"
  [ -x "$out/prometheus" ] && [ -x "$out/promtool" ] && return 0
  log "building prometheus and promtool $PROMETHEUS_VERSION ($TEST_TOOLS_BUILD)"
  mkdir -p "$out.tmp"
  GOBIN="$out.tmp" GOFLAGS= CGO_ENABLED=0 go install -trimpath -tags remove_all_sd,enable_kubernetes_sd \
    -gcflags "$test_tool_gcflags" -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_VERSION" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_VERSION"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# A Flux controller's CRDs ($1: source-controller or kustomize-controller, at version $2; config/crd/bases of its
# module) into <cache>/$1-crds-$2.
fetch_flux_crds() {
  local name=$1 ver=$2 out="$cache/$1-crds-$2" dir
  [ -d "$out" ] && return 0
  dir=$(module_path Dir "github.com/fluxcd/$name@$ver") || exit 1
  mkdir -p "$out.tmp"
  cp "$dir"/config/crd/bases/*.yaml "$out.tmp/"
  rm -rf "$out" && mv "$out.tmp" "$out"
}

# The mains of ours that build_test_tools builds (each file says why it is our own main), and the pinned versions of
# its modules, in the order test/env/binaries.ts (testToolsKey) reads them.
TEST_TOOLS_MAINS="argocd cert-manager"
TEST_TOOLS_VERSIONS="TEST_TOOLS_GOTOOLCHAIN ARGOCD_VERSION FLUX_SOURCE_CONTROLLER_VERSION FLUX_KUSTOMIZE_CONTROLLER_VERSION CERT_MANAGER_VERSION"

# The key of one build of the test tools: the first 12 hex of the sha256 of their versions and of their mains'
# sha256 sums, one per line, as test/env/binaries.ts (testToolsKey) computes it.
test_tools_key() {
  local name
  {
    for name in $TEST_TOOLS_VERSIONS; do echo "$name=${!name}"; done
    for name in $TEST_TOOLS_MAINS; do echo "$name=$(sha256sum "$here/$name/main.go" | cut -c1-64)"; done
  } | sha256sum | cut -c1-12
}

# Every test tool built on Kubernetes' client libraries, from one wrapper module in one go build: Argo CD's
# application-controller, repo-server and health assessment (argocd/main.go), Flux's source-controller and
# kustomize-controller (their own mains) and cert-manager's controller (cert-manager/main.go); Prometheus cannot join
# them (build_prometheus says why), CoreDNS is built apart (build_coredns says why).
# Built apart, each compiled its own copy of client-go, apimachinery, gRPC, OpenTelemetry and the rest; here what
# they share compiles once. Go's
# minimal version selection gives each shared module the highest version one of them requires, and Argo CD's
# replaces pin the Kubernetes libraries to its own (v0.37.0, with controller-runtime v0.24.1, the pair Argo CD
# releases with). Argo CD needs a newer Go than this machine's: the whole build uses TEST_TOOLS_GOTOOLCHAIN, which the
# Go module proxy serves (fetched once, cached with the modules). The wrapper requires each Flux controller and Argo
# CD with their submodules (api, gitops-engine) at the same tag, which their go.mods replace by path, and repeats
# their other replaces; two replaces of one module that disagree stop the build. Into
# <cache>/test-tools-<test_tools_key>-$TEST_TOOLS_BUILD; the CRDs and Argo CD's scripts come from the same modules.
build_test_tools() (
  export GOTOOLCHAIN=$TEST_TOOLS_GOTOOLCHAIN
  local out work
  out="$cache/test-tools-$(test_tools_key)-$TEST_TOOLS_BUILD"
  work="$cache/src/test-tools-$(test_tools_key)"
  fetch_flux_crds source-controller "$FLUX_SOURCE_CONTROLLER_VERSION"
  fetch_flux_crds kustomize-controller "$FLUX_KUSTOMIZE_CONTROLLER_VERSION"
  fetch_cert_manager_crds
  fetch_argocd_files
  local bins="argocd cert-manager source-controller kustomize-controller" bin missing=0
  for bin in $bins; do [ -x "$out/$bin" ] || missing=1; done
  [ "$missing" = 0 ] && exit 0
  log "building the test tools ($TEST_TOOLS_GOTOOLCHAIN, $TEST_TOOLS_BUILD): Argo CD $ARGOCD_VERSION, Flux's" \
    "source-controller $FLUX_SOURCE_CONTROLLER_VERSION and kustomize-controller $FLUX_KUSTOMIZE_CONTROLLER_VERSION," \
    "cert-manager $CERT_MANAGER_VERSION"
  local name replaces conflicts
  replaces=$(
    replaces_of "$(module_path GoMod "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION")" "$ARGOCD_VERSION" &&
      replaces_of "$(module_path GoMod "github.com/fluxcd/source-controller@$FLUX_SOURCE_CONTROLLER_VERSION")" \
        "$FLUX_SOURCE_CONTROLLER_VERSION" &&
      replaces_of "$(module_path GoMod "github.com/fluxcd/kustomize-controller@$FLUX_KUSTOMIZE_CONTROLLER_VERSION")" \
        "$FLUX_KUSTOMIZE_CONTROLLER_VERSION"
  ) || exit 1
  replaces=$(sort -u <<<"$replaces")
  conflicts=$(awk '{print $2}' <<<"$replaces" | uniq -d)
  [ -z "$conflicts" ] || { echo "build.sh: the test tools replace these modules differently: $conflicts" >&2; exit 1; }
  mkdir -p "$work"
  {
    go_mod_head etcdgitops.local/test-tools
    echo
    echo "require ("
    echo "  github.com/argoproj/argo-cd/v3 $ARGOCD_VERSION"
    echo "  github.com/fluxcd/source-controller $FLUX_SOURCE_CONTROLLER_VERSION"
    echo "  github.com/fluxcd/source-controller/api $FLUX_SOURCE_CONTROLLER_VERSION"
    echo "  github.com/fluxcd/kustomize-controller $FLUX_KUSTOMIZE_CONTROLLER_VERSION"
    echo "  github.com/fluxcd/kustomize-controller/api $FLUX_KUSTOMIZE_CONTROLLER_VERSION"
    echo "  github.com/cert-manager/cert-manager $CERT_MANAGER_VERSION"
    echo ")"
    echo
    echo "$replaces"
  } >"$work/go.mod"
  # The commands that are other modules' own mains, so that go mod tidy keeps what they import (never built itself).
  printf '//go:build etcdgitops_tools\n\npackage build\n\nimport (\n%s\n)\n' "$(printf '\t_ "%s"\n' \
    github.com/fluxcd/source-controller github.com/fluxcd/kustomize-controller)" >"$work/tools.go"
  for name in $TEST_TOOLS_MAINS; do mkdir -p "$work/$name" && cp "$here/$name/main.go" "$work/$name/main.go"; done
  # -e: the tests of some packages import test servers the proxy refuses; nothing built imports them.
  (cd "$work" && go mod tidy -e >/dev/null 2>&1 || true)
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  # A directory -o names each command after its package's last element.
  (cd "$work" && CGO_ENABLED=0 go build -trimpath -gcflags "$test_tool_gcflags" -ldflags "-s -w" -o "$out.tmp/" \
    ./argocd ./cert-manager github.com/fluxcd/source-controller github.com/fluxcd/kustomize-controller)
  rm -rf "$out" && mv "$out.tmp" "$out"
  log "built the test tools: $bins"
)

# What everything before the tests needs, and every Debian package, so that no apt-get runs beside the tests or the
# rest: the product image's etcd tools and skopeo, and what `node build/image/cli.js all --store` puts in the
# environments' registry store (the registry itself, Prometheus and kube-state-metrics for their images).
build_first() {
  build_etcd34
  apt_install lua5.1 skopeo
  node_packages
  gitops_packages
  build_etcd "$ETCD36_VERSION"
  build_etcd "$ETCD35_VERSION"
  build_etcd_tools_other_arch
  build_registry
  fetch_prometheus_operator_crds
  build_prometheus
  build_kube_state_metrics
}

# The rest, in the order the tests need them when `npm test` builds them beside the tests (scripts/test.mjs): MinIO
# for the integration files, then what every environment with nodes runs, then the tools only some files start.
build_rest() {
  build_minio
  build_kubernetes
  build_containerd
  build_kube_router
  build_coredns
  build_test_tools
  build_health_check
}

usage="all|first|rest|etcd|kubernetes|etcd35|etcd36|etcd34|minio|containerd|kube-router|kube-state-metrics|registry|prometheus-operator-crds|node-packages|lua|health-check|prometheus|coredns|test-tools|gitops-packages"
# (Each group's function runs as a command of its own: `set -e` does not stop a function called on the left of &&.)
case "${1:-all}" in
  all)
    build_first
    build_rest
    log "every binary is built"
    ;;
  first) build_first ;;
  rest)
    build_rest
    log "every binary is built"
    ;;
  kubernetes) build_kubernetes ;;
  etcd) build_etcd34 && build_etcd "$ETCD35_VERSION" && build_etcd "$ETCD36_VERSION" && build_etcd_tools_other_arch && apt_install dpkg gzip tar skopeo ;;
  etcd35) build_etcd "$ETCD35_VERSION" ;;
  etcd36) build_etcd "$ETCD36_VERSION" ;;
  etcd34) build_etcd34 ;;
  minio) build_minio ;;
  containerd) build_containerd ;;
  kube-router) build_kube_router ;;
  node-packages) node_packages ;;
  lua) apt_install lua5.1 ;;
  kube-state-metrics) build_kube_state_metrics ;;
  registry) build_registry && apt_install skopeo ;;
  health-check) build_health_check ;;
  prometheus) build_prometheus ;;
  coredns) build_coredns ;;
  test-tools|argocd|cert-manager|flux) build_test_tools ;;
  # The key of the test tools' cache directory, as test/env/binaries.ts computes it (its unit test compares them).
  test-tools-key) test_tools_key ;;
  gitops-packages) gitops_packages ;;
  prometheus-operator-crds) fetch_prometheus_operator_crds ;;
  *) echo "usage: $0 [$usage] (test-tools: also argocd, cert-manager, flux)" >&2; exit 2 ;;
esac

// Which operator manages a cluster: the `operator` prop, the one EtcdOperator of the app, or the explicit
// `operatorNamespace`/`operatorServiceAccount` of an operator synthesized elsewhere. Resolved at synth time, so an
// operator added to the app after the cluster counts.
import type { IConstruct } from 'constructs';
import { type OperatorIdentity, type RegisteredOperator, registryOf } from '../app-registry.js';
import { CONTROLLER_NAME } from '../conventions/names.js';

export interface OperatorChoice {
  /** The `operator` prop, when given. */
  readonly operator?: RegisteredOperator;
  readonly operatorNamespace?: string;
  readonly operatorServiceAccount?: string;
}

export type OperatorResolution =
  | { readonly identity: OperatorIdentity; readonly problem?: undefined }
  | { readonly identity?: undefined; readonly problem: string };

const problem = (text: string): OperatorResolution => ({ problem: text });

function describe(operator: RegisteredOperator): string {
  const { namespace, serviceAccountName } = operator.identity;
  return `EtcdOperator '${operator.construct.node.path}' (namespace '${namespace}', ServiceAccount '${serviceAccountName}')`;
}

/** The operator the props name or the app holds, or why there is not exactly one. */
function chosenOperator(
  cluster: IConstruct,
  choice: OperatorChoice,
): RegisteredOperator | OperatorResolution | undefined {
  const inApp = registryOf(cluster).operators;
  if (choice.operator) {
    const other = inApp.find((o) => o.construct !== choice.operator?.construct);
    if (!other) return choice.operator;
    return problem(
      `'operator' is ${describe(choice.operator)}, but this app also has ${describe(other)}: one app holds one operator, and its clusters use it; remove the other or pass the same one`,
    );
  }
  if (inApp.length > 1) {
    return problem(
      `this app has two operators, ${describe(inApp[0] as RegisteredOperator)} and ${describe(inApp[1] as RegisteredOperator)}: pass 'operator' to say which one manages this cluster (and keep one: one app holds one operator)`,
    );
  }
  return inApp[0];
}

function mismatch(choice: OperatorChoice, operator: RegisteredOperator): OperatorResolution | undefined {
  const { namespace, serviceAccountName } = operator.identity;
  if (choice.operatorNamespace !== undefined && choice.operatorNamespace !== namespace) {
    return problem(
      `'operatorNamespace' is '${choice.operatorNamespace}', but ${describe(operator)} runs in '${namespace}': leave 'operatorNamespace' unset to follow the operator, or set it to '${namespace}'`,
    );
  }
  if (choice.operatorServiceAccount !== undefined && choice.operatorServiceAccount !== serviceAccountName) {
    return problem(
      `'operatorServiceAccount' is '${choice.operatorServiceAccount}', but ${describe(operator)} runs as '${serviceAccountName}': leave 'operatorServiceAccount' unset to follow the operator, or set it to '${serviceAccountName}'`,
    );
  }
  return undefined;
}

/** The operator identity of `cluster`, or a message naming the props, the operators found and what to do. */
export function resolveOperator(cluster: IConstruct, choice: OperatorChoice): OperatorResolution {
  const chosen = chosenOperator(cluster, choice);
  if (chosen && 'construct' in chosen) return mismatch(choice, chosen) ?? { identity: chosen.identity };
  if (chosen) return chosen;
  if (choice.operatorNamespace !== undefined) {
    return {
      identity: {
        namespace: choice.operatorNamespace,
        serviceAccountName: choice.operatorServiceAccount ?? CONTROLLER_NAME,
      },
    };
  }
  const what =
    choice.operatorServiceAccount === undefined
      ? "no operator: this app has no EtcdOperator, and 'operator' and 'operatorNamespace' are unset"
      : `'operatorServiceAccount' is '${choice.operatorServiceAccount}' but 'operatorNamespace' is unset and this app has no EtcdOperator`;
  return problem(
    `${what}; add an EtcdOperator to this app (or pass one as 'operator'), or, when the operator is synthesized in another app, set 'operatorNamespace' (and 'operatorServiceAccount' unless it is '${CONTROLLER_NAME}') to where it runs`,
  );
}

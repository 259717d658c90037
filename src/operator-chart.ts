// dist/01-operator.k8s.yaml: namespace, RBAC, controller and metrics Service (CRDs are in their own chart).
import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { EtcdOperator } from '../constructs/etcd-operator.js';

export class OperatorChart extends Chart {
  public readonly operator: EtcdOperator;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    this.operator = new EtcdOperator(this, 'operator', { crds: false });
  }
}

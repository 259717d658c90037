// dist/00-crds.k8s.yaml: the CRDs, cluster-scoped, first sync wave.
import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { EtcdCrds } from '../constructs/etcd-crds.js';

export class CrdsChart extends Chart {
  public constructor(scope: Construct, id: string) {
    super(scope, id);
    new EtcdCrds(this, 'crds');
  }
}

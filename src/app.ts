// Our cdk8s app: CRDs, operator and an example cluster, one file each in dist/.
import { App } from 'cdk8s';
import { CrdsChart } from './crds-chart.js';
import { ExampleChart, type ExampleChartProps } from './example-chart.js';
import { OperatorChart } from './operator-chart.js';

/** The app, writing to `outdir` (default: `$CDK8S_OUTDIR` or `dist`); `example` varies the example cluster. */
export function buildApp(outdir?: string, example: ExampleChartProps = {}): App {
  const app = new App(outdir === undefined ? {} : { outdir });
  new CrdsChart(app, '00-crds');
  new OperatorChart(app, '01-operator');
  new ExampleChart(app, '02-example', example);
  return app;
}

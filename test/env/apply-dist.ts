// Applies dist/ the way Argo CD syncs it: wave by wave, server-side, waiting for CRDs to be
// Established before the next wave uses them.
import { distDir, type Manifest, readManifests, syncWaves, toYamlStream } from './dist-manifests.js';
import { kubectl } from './kubectl.js';

export interface ApplyDistOptions {
  /** @default dist/ of the repository */
  dir?: string;
  /** Field manager of the server-side apply. @default kubectl's own ('kubectl'), so a later `kubectl apply --server-side` does not conflict */
  fieldManager?: string;
  /** Only the waves below this one (`0`: the CRDs and the operator, without the example cluster). @default all */
  belowWave?: number;
}

/** Applies every manifest in `dir`, wave by wave; returns what it applied, in order. */
export async function applyDist(kubeconfigPath: string, options: ApplyDistOptions = {}): Promise<Manifest[]> {
  const manifests = readManifests(options.dir ?? distDir).filter(
    (manifest) => options.belowWave === undefined || manifest.wave < options.belowWave,
  );
  if (manifests.length === 0)
    throw new Error(`${options.dir ?? distDir} holds no manifests: run 'npm run synth' first`);
  for (const wave of syncWaves(manifests)) {
    await kubectl(
      kubeconfigPath,
      [
        'apply',
        '--server-side',
        ...(options.fieldManager ? [`--field-manager=${options.fieldManager}`] : []),
        '-f',
        '-',
      ],
      { input: toYamlStream(wave) },
    );
    const crds = wave.filter((m) => m.kind === 'CustomResourceDefinition').map((m) => `crd/${m.name}`);
    if (crds.length > 0) {
      await kubectl(kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', ...crds]);
    }
  }
  return manifests;
}

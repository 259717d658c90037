// A container's environment as the kubelet builds it: image defaults and service variables first, then
// envFrom sources in order, then env entries in order, each value `$(VAR)`-expanded with what came before.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { expandVariables } from './expand.js';
import { fieldValue, type PodPlacement, resourceValue } from './field-ref.js';

/** Reads Secrets and ConfigMaps (decoded); `undefined` when the object does not exist. */
export interface ConfigSources {
  secret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  configMap(namespace: string, name: string): Promise<Record<string, string> | undefined>;
}

/** A container cannot be configured yet (the kubelet's CreateContainerConfigError); retried later. */
export class ContainerConfigError extends Error {}

async function lookup(
  sources: ConfigSources,
  kind: 'secret' | 'configMap',
  namespace: string,
  name: string,
  optional: boolean | undefined,
): Promise<Record<string, string> | undefined> {
  const data =
    kind === 'secret' ? await sources.secret(namespace, name) : await sources.configMap(namespace, name);
  if (!data && !optional) throw new ContainerConfigError(`${kind} "${name}" not found`);
  return data;
}

async function keyValue(
  sources: ConfigSources,
  kind: 'secret' | 'configMap',
  namespace: string,
  ref: { name?: string; key: string; optional?: boolean },
): Promise<string | undefined> {
  const data = await lookup(sources, kind, namespace, ref.name ?? '', ref.optional);
  const value = data?.[ref.key];
  if (value === undefined && data && !ref.optional) {
    throw new ContainerConfigError(`couldn't find key ${ref.key} in ${kind} ${namespace}/${ref.name}`);
  }
  return value;
}

export async function containerEnv(
  pod: V1Pod,
  container: V1Container,
  placement: PodPlacement,
  sources: ConfigSources,
  base: Record<string, string>,
): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const env: Record<string, string> = { ...base };
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    const ref = from.secretRef ?? from.configMapRef;
    const kind = from.secretRef ? 'secret' : 'configMap';
    const data = ref ? await lookup(sources, kind, namespace, ref.name ?? '', ref.optional) : undefined;
    for (const [key, value] of Object.entries(data ?? {})) env[`${prefix}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const source = variable.valueFrom;
    let value: string | undefined;
    if (!source) value = expandVariables(variable.value ?? '', (name) => env[name]);
    else if (source.fieldRef) value = fieldValue(pod, source.fieldRef.fieldPath, placement);
    else if (source.resourceFieldRef) value = resourceValue(container, source.resourceFieldRef);
    else if (source.secretKeyRef) value = await keyValue(sources, 'secret', namespace, source.secretKeyRef);
    else if (source.configMapKeyRef)
      value = await keyValue(sources, 'configMap', namespace, source.configMapKeyRef);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** `argv` with `$(VAR)` references to `env` expanded. */
export function expandArgv(argv: string[], env: Record<string, string>): string[] {
  return argv.map((arg) => expandVariables(arg, (name) => env[name]));
}

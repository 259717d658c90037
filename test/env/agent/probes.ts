// One probe attempt, as the kubelet runs it: exec inside the container's mount namespace (nsenter),
// httpGet against the Pod IP (2xx/3xx succeed), tcpSocket connect; each bounded by timeoutSeconds.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1ContainerPort, V1Probe } from '@kubernetes/client-node';
import { signalGroup } from './container-process.js';
import { type LocalImage, resolveExecutable } from './images.js';

export interface ProbeTarget {
  podIP: string;
  /** Process id of the running container (its mount namespace is entered for exec probes). */
  pid: number;
  env: Record<string, string>;
  image: LocalImage;
  ports: V1ContainerPort[];
}

export interface ProbeResult {
  ok: boolean;
  message?: string;
}

function port(value: number | string, ports: V1ContainerPort[]): number {
  if (typeof value === 'number' || /^\d+$/.test(value)) return Number(value);
  const named = ports.find((p) => p.name === value);
  if (!named) throw new Error(`probe port "${value}" is not a named port of the container`);
  return named.containerPort;
}

function execProbe(command: string[], target: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  const [first = '', ...rest] = command;
  const executable = resolveExecutable(target.image, first);
  if (!executable)
    return Promise.resolve({ ok: false, message: `exec probe: "${first}" is not in the image` });
  return new Promise((resolve) => {
    const child = spawn(
      '/usr/bin/nsenter',
      [`--target=${target.pid}`, '--mount', '--', ...executable, ...rest],
      {
        env: target.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < 4096) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const timer = setTimeout(() => {
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
      resolve({ ok: false, message: `exec probe timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, message: error.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(
        code === 0 ? { ok: true } : { ok: false, message: `exec probe exited ${code}: ${output.trim()}` },
      );
    });
  });
}

function httpProbe(
  probe: NonNullable<V1Probe['httpGet']>,
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeResult> {
  const secure = probe.scheme === 'HTTPS';
  const headers = Object.fromEntries((probe.httpHeaders ?? []).map((h) => [h.name, h.value]));
  const options = {
    host: probe.host ?? target.podIP,
    port: port(probe.port as number | string, target.ports),
    path: probe.path ?? '/',
    method: 'GET',
    headers,
    timeout: timeoutMs,
    agent: false as const,
    rejectUnauthorized: false,
  };
  return new Promise((resolve) => {
    const request = (secure ? httpsRequest : httpRequest)(options, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(
        status >= 200 && status < 400
          ? { ok: true }
          : { ok: false, message: `HTTP probe failed with statuscode: ${status}` },
      );
    });
    request.on('timeout', () => request.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    request.on('error', (error) =>
      resolve({ ok: false, message: `Get ${options.host}:${options.port}${options.path}: ${error.message}` }),
    );
    request.end();
  });
}

function tcpProbe(
  probe: NonNullable<V1Probe['tcpSocket']>,
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeResult> {
  const host = probe.host ?? target.podIP;
  const tcpPort = port(probe.port as number | string, target.ports);
  return new Promise((resolve) => {
    const socket = connect({ host, port: tcpPort, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ ok: true });
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ ok: false, message: `dial tcp ${host}:${tcpPort}: timeout` });
    });
    socket.once('error', (error) =>
      resolve({ ok: false, message: `dial tcp ${host}:${tcpPort}: ${error.message}` }),
    );
  });
}

export async function runProbe(probe: V1Probe, target: ProbeTarget): Promise<ProbeResult> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  try {
    if (probe.exec) return await execProbe(probe.exec.command ?? [], target, timeoutMs);
    if (probe.httpGet) return await httpProbe(probe.httpGet, target, timeoutMs);
    if (probe.tcpSocket) return await tcpProbe(probe.tcpSocket, target, timeoutMs);
    return {
      ok: false,
      message: 'probe type not supported by the node agent (exec, httpGet, tcpSocket are)',
    };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

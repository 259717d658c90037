// Whether a node's containerd serves the CRI. After a restart containerd answers its own API (`ctr version`) before
// its CRI plugin has restored its state; until then every CRI call fails "server is not initialized yet", and a
// kubelet started then exits at once ("validate CRI v1 runtime API"): seen when the Prometheus e2e rebooted a node
// under load. The kubelet is started only once the CRI answers.
import { Client, credentials } from '@grpc/grpc-js';

/** Resolves whether `RuntimeService/Version` answers on the containerd socket (an empty request: its one field is
 *  optional). */
export function criAnswers(socket: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new Client(`unix://${socket}`, credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      '/runtime.v1.RuntimeService/Version',
      () => Buffer.alloc(0),
      (bytes: Buffer) => bytes,
      {},
      { deadline: Date.now() + timeoutMs },
      (error) => {
        client.close();
        resolve(!error);
      },
    );
  });
}

// A client for the two calls of etcd's Maintenance service that backup and restore make: Status and Snapshot.
// grpc-js carries them (connection, TLS, HTTP/2 flow control, deadlines); maintenance-messages.ts decodes the
// answers. Why not etcd3 here: it parses etcd's whole rpc.proto with protobufjs when it loads and decodes every
// snapshot message through protobufjs, which cost a backup memory and time (the figures:
// docs/adr/0009-own-maintenance-client.md). The controller and the defrag command keep etcd3.
import { Client, type ClientReadableStream, credentials, type ServiceError } from '@grpc/grpc-js';
import { type EtcdTls, etcdCallTimeoutMs, readTlsFiles } from './connection-options.js';
import {
  decodeSnapshotResponse,
  decodeStatusResponse,
  type SnapshotResponse,
  type StatusResponse,
} from './maintenance-messages.js';

/** The methods' paths: package `etcdserverpb`, service `Maintenance`. */
const STATUS = '/etcdserverpb.Maintenance/Status';
const SNAPSHOT = '/etcdserverpb.Maintenance/Snapshot';

/** StatusRequest and SnapshotRequest have no fields: both encode to no bytes. */
const emptyRequest = (): Buffer => Buffer.alloc(0);

/** A server stream of snapshot responses; `cancel()` ends it from our side. */
export type SnapshotCall = ClientReadableStream<SnapshotResponse>;

export class MaintenanceClient {
  private constructor(private readonly client: Client) {}

  /**
   * A client of the member at `endpoint` (`http://host:port` or `https://host:port`). TLS when any TLS file is
   * given or the endpoint is https (then with the system's CAs unless `caFile` says otherwise), as etcd3 decides.
   */
  static async connect(endpoint: string, tls: EtcdTls = {}): Promise<MaintenanceClient> {
    const material = await readTlsFiles(tls);
    const secure = material !== undefined || endpoint.startsWith('https:');
    const channel = secure
      ? credentials.createSsl(material?.rootCertificate, material?.privateKey, material?.certChain)
      : credentials.createInsecure();
    return new MaintenanceClient(new Client(endpoint.replace(/^https?:\/\//, ''), channel));
  }

  /** The member's Status, within `etcdCallTimeoutMs`. */
  status(): Promise<StatusResponse> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        STATUS,
        emptyRequest,
        decodeStatusResponse,
        {},
        { deadline: Date.now() + etcdCallTimeoutMs },
        (error: ServiceError | null, response?: StatusResponse) => {
          if (error || !response) reject(error ?? new Error('etcd answered Status with no message'));
          else resolve(response);
        },
      );
    });
  }

  /** Starts `Maintenance.Snapshot`. grpc-js reads the next message only when the stream's consumer asks. */
  snapshot(): SnapshotCall {
    return this.client.makeServerStreamRequest(SNAPSHOT, emptyRequest, decodeSnapshotResponse, {});
  }

  close(): void {
    this.client.close();
  }
}

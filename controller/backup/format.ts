// `backup status --output table`: aligned columns, newest first.
import type { StatusReport } from './status.js';

export function formatTable(report: StatusReport): string {
  const verifying = report.backups.some((b) => b.verified !== undefined);
  const header = [
    'TIME',
    'REVISION',
    'SIZE',
    'SHA256',
    'COMPRESSION',
    'ETCD',
    'KEY',
    ...(verifying ? ['VERIFIED'] : []),
  ];
  const rows = report.backups.map((b) => [
    b.time,
    b.revision,
    String(b.size),
    b.sha256.slice(0, 16),
    b.compression,
    b.etcdVersion,
    b.key,
    ...(verifying ? [b.verified === 'ok' ? 'ok' : `${b.verified}: ${b.problem ?? ''}`] : []),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  const lines = [line(header), ...rows.map(line)];
  if (report.backups.length === 0) lines.push(`(no backups under s3://${report.bucket}/${report.prefix})`);
  for (const key of report.partials) lines.push(`partial (interrupted save, not a backup): ${key}`);
  return `${lines.join('\n')}\n`;
}

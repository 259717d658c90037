// GNU tar flags for reproducible archives (layers and the image archive itself): names sorted, every time 0,
// numeric root ownership, POSIX format without the access and change times pax would add, and permissions
// independent of the build's umask (readable by all, writable by the owner only; `X` keeps directories and
// executables searchable). The same files give the same bytes on any machine with GNU tar ≥ 1.28 (`--sort`).
export const deterministicTar = [
  '--mode=a+rX,go-w',
  '--sort=name',
  '--mtime=@0',
  '--owner=0',
  '--group=0',
  '--numeric-owner',
  '--format=posix',
  '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
];

// The environment's own test image: Debian's static busybox (sh, nslookup, wget, httpd, dd, ...) for tests
// that need a shell inside a Pod. Built with the product's images (image/), never pulled.
export const testImage = 'etcd-gitops.test/busybox:1.35';

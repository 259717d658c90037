export type { BackoffPolicy } from './backoff.js';
export type { ImageRule, LocalImage } from './images.js';
export { busyboxImage, defaultImageRules, etcdGitopsImage, etcdImages, resolveImage } from './images.js';
export type { NodeAgent, NodeAgentFaults, NodeAgentOptions } from './node-agent.js';
export { startNodeAgent } from './node-agent.js';

export * from './client.js';
export * from './copy.js';
export * from './errors.js';
export * from './list.js';

export * from './bucket.js';
export * from './cidr.js';
export * from './cron.js';
export * from './duration.js';
export * from './names.js';
export * from './quantity.js';
export * from './semver.js';
export * from './url.js';

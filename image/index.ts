// Images built without a container engine (docs/adr/0001-images-without-a-container-engine.md).
export { type BuildImagesOptions, type BuiltImage, buildImages } from './build.js';
export { imagesDir } from './cache.js';
export { imageChoices, imageGroups, images, pauseImage, resolveImageNames } from './images.js';

// How a save uploads unless told otherwise: alone in a module, so the bench's baseline upload reads the same values
// without loading the save's own modules.
const mib = 1024 * 1024;

/** Multipart part size of a save unless told otherwise (`partSizeMiB`). */
export const DEFAULT_PART_SIZE_BYTES = 8 * mib;

/** Parts a save uploads at once unless told otherwise (`queueSize`). */
export const DEFAULT_QUEUE_SIZE = 2;

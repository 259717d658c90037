// How a save uploads unless told otherwise: alone in a module, so the bench's baseline upload reads the same values
// without loading the save's own modules. The ranges and defaults are the conventions' (shared with the constructs).
import { PART_SIZE_MIB, QUEUE_SIZE } from '../../constructs/conventions/backup.js';

const mib = 1024 * 1024;

/** Multipart part size of a save unless told otherwise (`partSizeMiB`). */
export const DEFAULT_PART_SIZE_BYTES = PART_SIZE_MIB.default * mib;

/** Parts a save uploads at once unless told otherwise (`queueSize`). */
export const DEFAULT_QUEUE_SIZE = QUEUE_SIZE.default;

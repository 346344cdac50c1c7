/**
 * When appended lines are forced to the disk (fsync):
 * - `turn`: before the end of a turn is reported — the loop awaits `flushed()` after `turn/end`, and
 *   `flushed()` fsyncs. One fsync per turn; a power cut can lose only a turn nobody was told had ended.
 * - `event`: after every write batch; each event is on the platter about as soon as it is logged. One
 *   fsync per batch, typically per event.
 * - `none`: never; `flushed()` means handed to the operating system, which a crash of the process
 *   survives and a power cut may not.
 */
export type Durability = 'turn' | 'event' | 'none'

export const DURABILITY_MODES: readonly Durability[] = ['turn', 'event', 'none']

/**
 * Safe reclamation of off-heap memory: SOMAR ({@link dev.floe.reclaim.Somar}) and its default
 * implementation {@link dev.floe.reclaim.Nova}, with the mechanisms every scheme shares.
 *
 * <h2>The idea in one page</h2>
 * Off-heap memory is not collected, so a program frees it explicitly; the danger is a thread
 * still using (or holding a copy of a pointer to) memory that another thread freed and the
 * allocator handed out again. Nova makes that safe without locks and without ever blocking a
 * free on a slow reader:
 * <ol>
 *   <li>Every slice carries a one-word header: a <em>version</em>, a <em>deleted</em> bit and its
 *       length. A safe pointer ({@link dev.floe.reclaim.SafePointer}, a plain {@code long}) carries
 *       the header's offset and the version it expects. Copies of it can live anywhere.</li>
 *   <li><b>Reads are optimistic</b>: read the data, then check the header did not change. A read
 *       that raced with a delete and reuse notices and fails; readers write nothing shared.</li>
 *   <li><b>Writes announce themselves</b> in a {@link dev.floe.reclaim.HazardSlots hazard slot}
 *       before validating, so the slice they write cannot be reused until they finish.</li>
 *   <li><b>Deletes</b> set the header's deleted bit with a CAS (one winner) and put the slice on
 *       a {@link dev.floe.reclaim.RetireBatches release list}. When a batch is full, the era
 *       ({@link dev.floe.reclaim.EraClock}) advances (if the batch holds a slice born in the
 *       current era; otherwise a full fence does), and every slice no hazard slot holds goes
 *       back to the allocator. New slices take the current era as their version, so a reused
 *       block never matches an old pointer.</li>
 * </ol>
 * The shared mechanisms — hazard slots (claim and publish in one CAS), the era clock, and retire
 * batches (lock-free append, a full batch drained by whoever seals it) — are written once and
 * serve Nova, the epoch-based and hazard-era baselines, and the later layers (OA hazard
 * pointers, ALASKA pins, Snowflake shields).
 *
 * <p>{@link dev.floe.reclaim.Nova}'s class comment states the orderings and the safety,
 * lock-freedom and robustness argument; {@code docs/reclaim.md} is the design note.
 */
package dev.floe.reclaim;

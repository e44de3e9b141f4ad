/**
 * Relocatable objects behind handles (ALASKA) and a concurrent defragmenting service
 * (ANCHORAGE).
 *
 * <h2>The idea in one page</h2>
 * <ol>
 *   <li>A {@link dev.floe.handle.Handle handle} is a {@code long} (id + version) naming an object
 *       through a handle table, one level of indirection: the object can move while every copy
 *       of the handle stays valid. User code never sees an address.</li>
 *   <li>Objects live in the {@link dev.floe.handle.AnchorageHeap handle area}: chunks of their
 *       own inside the same {@link dev.floe.memory.FloeAllocator} as fixed (Nova) slices, so that
 *       moving objects can empty a chunk and give its memory back.</li>
 *   <li>{@link dev.floe.handle.HandleSpace#read Reads} are optimistic (validate the entry after
 *       reading; readers write nothing shared); {@link dev.floe.handle.HandleSpace#write writes}
 *       and {@link dev.floe.handle.HandleSpace#pin pins} publish the id in a hazard slot first;
 *       a pinned object never moves.</li>
 *   <li>The {@link dev.floe.handle.Anchorage defragmenter} moves an object by marking its entry,
 *       checking pins, copying, and switching the entry with one CAS; a pinner that arrives
 *       meanwhile cancels the move. No thread is ever stopped.</li>
 *   <li>Frees are deferred through retire batches until no pin holds the object; stale handles
 *       fail their version check.</li>
 * </ol>
 * {@link dev.floe.handle.HandleSpace}'s class comment states the protocol and why it is correct;
 * {@code docs/handles.md} is the design note.
 */
package dev.floe.handle;

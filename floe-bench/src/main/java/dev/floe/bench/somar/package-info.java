/**
 * The {@code somar} suite: the Nova paper's section 4.1 (off-heap data indexed by Java data
 * structures) at quick or paper scale. Two structures, each in one storage variant per
 * implementation:
 * <ul>
 *   <li>the LL-map, a Harris-style lock-free ordered linked list with on-heap nodes
 *       ({@link dev.floe.bench.somar.LlMap}), whose 512-byte keys and 1 KiB values live in
 *       SOMAR slices ({@link dev.floe.bench.somar.SomarList}) named by primitive {@code long}
 *       safe pointers ({@link dev.floe.bench.somar.SomarLongList}) or by pointers wrapped in
 *       objects ({@link dev.floe.bench.somar.SomarObjectList}), in {@code byte[]}s
 *       ({@link dev.floe.bench.somar.HeapList}) or in one FFM arena each
 *       ({@link dev.floe.bench.somar.SegmentList});</li>
 *   <li>a {@code ConcurrentSkipListMap} with on-heap 128-byte keys and 1 KiB values held off-heap
 *       through small value objects ({@link dev.floe.bench.somar.SlMap} and its variants).</li>
 * </ul>
 * {@link dev.floe.bench.somar.SomarImpl} is the one factory that creates them by implementation
 * name; {@link dev.floe.bench.somar.SomarSuite} is the suite.
 */
package dev.floe.bench.somar;

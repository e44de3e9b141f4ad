/**
 * The {@code defrag} suite: handles with and without ANCHORAGE's concurrent defragmenting service
 * against fixed Nova slices, on the paper's Redis fragmentation experiment (an LRU cache whose
 * value size changes), with RSS sampled every 100 ms for the paper's Figure 9.
 */
package dev.floe.bench.defrag;

package dev.floe.memory;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** JFR event {@code floe.SuperblockRelease}: an empty superblock's memory went back to the OS. */
@Name("floe.SuperblockRelease")
@Label("Floe Superblock Release")
@Category({"Floe", "Memory"})
@Description("An empty superblock was released to the OS with madvise(MADV_DONTNEED)")
public final class SuperblockReleaseEvent extends jdk.jfr.Event {
    @Label("Region Offset")
    public long offset;
    @Label("Size Class")
    public int sizeClass;
    @Label("Block Size")
    @DataAmount
    public int blockSize;
    @Label("Bytes Released")
    @DataAmount
    public long bytes;
}

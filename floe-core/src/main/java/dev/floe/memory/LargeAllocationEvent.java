package dev.floe.memory;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * JFR event {@code floe.LargeAllocation}: a request above the largest size class was served (or
 * freed, {@code freed = true}) as a run of pages.
 */
@Name("floe.LargeAllocation")
@Label("Floe Large Allocation")
@Category({"Floe", "Memory"})
@Description("A page run above the largest size class was allocated or freed")
public final class LargeAllocationEvent extends jdk.jfr.Event {
    @Label("Region Offset")
    public long offset;
    @Label("Requested Bytes")
    @DataAmount
    public long requested;
    @Label("Run Bytes")
    @DataAmount
    public long bytes;
    @Label("Freed")
    public boolean freed;
}

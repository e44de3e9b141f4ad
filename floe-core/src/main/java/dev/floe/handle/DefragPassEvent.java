package dev.floe.handle;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** JFR event {@code floe.DefragPass}: one pass of ANCHORAGE's defragmenter (its duration is the pass time). */
@Name("floe.DefragPass")
@Label("Floe Defragmentation Pass")
@Category({"Floe", "Handles"})
@Description("Objects moved out of sparse handle-area chunks by one defragmentation pass")
public final class DefragPassEvent extends jdk.jfr.Event {
    /** Block bytes relocated by the pass. */
    @Label("Bytes Moved")
    @DataAmount
    public long bytesMoved;
    /** Objects relocated by the pass. */
    @Label("Objects Moved")
    public long objectsMoved;
    /** ANCHORAGE's F (committed / live bytes) when the pass started. */
    @Label("Fragmentation Before")
    public double fragmentationBefore;
    /** F when the pass ended. */
    @Label("Fragmentation After")
    public double fragmentationAfter;
}

// TogyzTbExample.java: probe togyz-tb tables from Java through JNA and the
// C ABI (capi/include/togyz_tb.h). It prints what capi/examples/probe.c
// prints, so the two can be compared; above the tables it proves the result
// by search (togyz_tb_solve) within 5 s.
//
//   javac -cp /usr/share/java/jna.jar -d out jvm/src/TogyzTbExample.java
//   java -cp /usr/share/java/jna.jar:out -Djna.library.path=target/release \
//        TogyzTbExample TABLES_DIR [FEN]

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public final class TogyzTbExample {
    /** The C functions, one Java method each (statuses are ints). */
    public interface TogyzTb extends Library {
        TogyzTb LIB = Native.load("togyz_tb", TogyzTb.class);

        int TOGYZ_STATUS_OK = 0;
        int TOGYZ_STATUS_MISSING_TABLE = 5;
        int TOGYZ_METRIC_NONE = 0;
        int TOGYZ_MAX_MOVES = 9;
        long TOGYZ_DEFAULT_CACHE_BYTES = 268435456L;

        String togyz_tb_version();
        String togyz_tb_last_error();
        int togyz_tb_open(String[] dirs, long ndirs, long cacheBytes, PointerByReference out);
        void togyz_tb_close(Pointer tb);
        int togyz_tb_complete_up_to(Pointer tb, IntByReference out);
        int togyz_position_from_fen(String fen, Position out);
        int togyz_position_to_fen(Position pos, byte[] buf, long len);
        int togyz_tb_wdl(Pointer tb, Position pos, IntByReference out);
        int togyz_tb_value(Pointer tb, Position pos, Value out);
        int togyz_tb_root(Pointer tb, Position pos, RootMove[] moves, long capacity, LongRef count);
        int togyz_tb_solve(Pointer tb, Position pos, double maxSeconds, long maxNodes, SearchResult out);
    }

    /** struct TogyzPosition. */
    @Structure.FieldOrder({"holes", "kazans", "tuzdyks", "side_to_move", "move_number"})
    public static class Position extends Structure {
        public byte[] holes = new byte[18];
        public byte[] kazans = new byte[2];
        public byte[] tuzdyks = new byte[2];
        public byte side_to_move;
        public int move_number;
    }

    /** struct TogyzValue. */
    @Structure.FieldOrder({"wdl", "metric", "distance"})
    public static class Value extends Structure {
        public int wdl;
        public int metric;
        public int distance;

        @Override
        public String toString() {
            String name = wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw";
            return metric == TogyzTb.TOGYZ_METRIC_NONE ? name : name + " in " + Integer.toUnsignedString(distance);
        }
    }

    /** struct TogyzRootMove. */
    @Structure.FieldOrder({"hole", "traditional", "uci", "value"})
    public static class RootMove extends Structure {
        public byte hole;
        public byte[] traditional = new byte[8];
        public byte[] uci = new byte[8];
        public Value value;
    }

    /** struct TogyzSearchResult. */
    @Structure.FieldOrder({"lower", "upper", "proven", "best_hole", "best_traditional", "source",
        "table_stones", "nodes", "graph_positions", "seconds"})
    public static class SearchResult extends Structure {
        public int lower;
        public int upper;
        public byte proven;
        public byte best_hole;
        public byte[] best_traditional = new byte[8];
        public int source;
        public int table_stones;
        public long nodes;
        public long graph_positions;
        public double seconds;
    }

    /** A size_t out-parameter (64-bit platforms). */
    public static class LongRef extends com.sun.jna.ptr.LongByReference {}

    static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) n++;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    static void check(String what, int status) {
        if (status != TogyzTb.TOGYZ_STATUS_OK) {
            throw new IllegalStateException(
                what + " failed (status " + status + "): " + TogyzTb.LIB.togyz_tb_last_error());
        }
    }

    /** The value and ranked moves, as probe.c prints them. */
    static String report(Pointer tb, Position pos) {
        Value value = new Value();
        check("togyz_tb_value", TogyzTb.LIB.togyz_tb_value(tb, pos, value));
        RootMove[] moves = (RootMove[]) new RootMove().toArray(TogyzTb.TOGYZ_MAX_MOVES);
        LongRef count = new LongRef();
        check("togyz_tb_root", TogyzTb.LIB.togyz_tb_root(tb, pos, moves, moves.length, count));
        StringBuilder out = new StringBuilder("value: " + value + "\nmoves, best first:\n");
        for (int i = 0; i < count.getValue(); i++) {
            RootMove m = moves[i];
            out.append(String.format("  %-4s hole %d  %-5s %s%n",
                cString(m.traditional), m.hole, cString(m.uci), m.value));
        }
        return out.toString();
    }

    static String wdlName(int wdl) {
        return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw";
    }

    /** Above the tables: proof search within 5 s, as probe.c prints it. */
    static String solve(Pointer tb, Position pos) {
        SearchResult r = new SearchResult();
        check("togyz_tb_solve", TogyzTb.LIB.togyz_tb_solve(tb, pos, 5.0, 0, r));
        String out = r.proven != 0
            ? String.format("value: %s, proven by search (%d nodes, %.2f s; tables up to %d stones)%n",
                wdlName(r.lower), r.nodes, r.seconds, r.table_stones)
            : String.format("value: not proven in %.2f s: between %s and %s%n",
                r.seconds, wdlName(r.lower), wdlName(r.upper));
        if (r.best_hole != 0) {
            out += String.format("best move: %s (hole %d)%n", cString(r.best_traditional), r.best_hole);
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        int threads = 0;
        int arg = 0;
        if (args.length > 1 && args[0].equals("--threads")) {
            threads = Integer.parseInt(args[1]);
            arg = 2;
        }
        if (args.length - arg < 1 || args.length - arg > 2) {
            System.err.println("usage: TogyzTbExample [--threads N] TABLES_DIR [FEN]");
            System.exit(2);
        }
        String fen = args.length - arg == 2 ? args[arg + 1] : "7,2S,1/8,2S 79 79 S 1";
        PointerByReference handle = new PointerByReference();
        try {
            check("togyz_tb_open", TogyzTb.LIB.togyz_tb_open(
                new String[] {args[arg]}, 1, TogyzTb.TOGYZ_DEFAULT_CACHE_BYTES, handle));
        } catch (IllegalStateException e) {
            System.err.println("probe: " + e.getMessage());
            System.exit(1);
        }
        Pointer tb = handle.getValue();
        int status = 0;
        try {
            IntByReference complete = new IntByReference();
            check("togyz_tb_complete_up_to", TogyzTb.LIB.togyz_tb_complete_up_to(tb, complete));
            System.out.printf("togyz-tb %s, tables for 1..%d stones%n", TogyzTb.LIB.togyz_tb_version(), complete.getValue());
            Position pos = new Position();
            check("togyz_position_from_fen", TogyzTb.LIB.togyz_position_from_fen(fen, pos));
            byte[] back = new byte[128];
            check("togyz_position_to_fen", TogyzTb.LIB.togyz_position_to_fen(pos, back, back.length));
            Value probe = new Value();
            boolean above = TogyzTb.LIB.togyz_tb_value(tb, pos, probe) == TogyzTb.TOGYZ_STATUS_MISSING_TABLE;
            String expected = above ? solve(tb, pos) : report(tb, pos);
            System.out.print("position: " + cString(back) + "\n" + expected);
            if (threads > 0 && !above) {
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<Boolean>> jobs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    jobs.add(pool.submit(() -> {
                        for (int r = 0; r < 200; r++) {
                            if (!report(tb, pos).equals(expected)) return false;
                        }
                        return true;
                    }));
                }
                int agreed = 0;
                for (Future<Boolean> j : jobs) agreed += j.get() ? 1 : 0;
                pool.shutdown();
                System.out.printf("%d threads x 200 rounds: %d agreed%n", threads, agreed);
                if (agreed != threads) status = 1;
            }
        } catch (IllegalStateException e) {
            System.err.println("probe: " + e.getMessage());
            status = 1;
        } finally {
            TogyzTb.LIB.togyz_tb_close(tb);
        }
        System.exit(status);
    }
}

package tgt;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A method the JIT compiles as it is but never once instrumented: the
 * static tgt.HugeRun.m(J)J has SIZE bytes of code, just under HotSpot's
 * HugeMethodLimit (8000: larger methods are not compiled), so the probes
 * the session adds push it over. Generated (a class file of version 49,
 * which needs no stack map frames: straight-line code) to cost no sources;
 * called about a thousand times a second on thread huge.
 */
public final class Huge {
    /** The code's size: 4 bytes per step, then lload_0 lreturn. */
    static final int SIZE = 7990;

    private Huge() {
    }

    private static byte[] generate() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream o = new DataOutputStream(bytes);
        o.writeInt(0xCAFEBABE);
        o.writeShort(0);
        o.writeShort(49);
        o.writeShort(8);                       // constant pool count
        o.writeByte(1);
        o.writeUTF("tgt/HugeRun");             // 1
        o.writeByte(7);
        o.writeShort(1);                       // 2: this class
        o.writeByte(1);
        o.writeUTF("java/lang/Object");        // 3
        o.writeByte(7);
        o.writeShort(3);                       // 4: super class
        o.writeByte(1);
        o.writeUTF("m");                       // 5
        o.writeByte(1);
        o.writeUTF("(J)J");                    // 6
        o.writeByte(1);
        o.writeUTF("Code");                    // 7
        o.writeShort(0x31);                    // public final super
        o.writeShort(2);
        o.writeShort(4);
        o.writeShort(0);                       // interfaces
        o.writeShort(0);                       // fields
        o.writeShort(1);                       // methods
        o.writeShort(0x9);                     // public static
        o.writeShort(5);
        o.writeShort(6);
        o.writeShort(1);
        byte[] code = new byte[SIZE];
        for (int i = 0; i + 2 < SIZE; i += 4) {
            code[i] = 0x1e;                    // lload_0
            code[i + 1] = 0x0a;                // lconst_1
            code[i + 2] = 0x61;                // ladd
            code[i + 3] = 0x3f;                // lstore_0
        }
        code[SIZE - 2] = 0x1e;                 // lload_0
        code[SIZE - 1] = (byte) 0xad;          // lreturn
        o.writeShort(7);
        o.writeInt(12 + code.length);
        o.writeShort(4);                       // max stack
        o.writeShort(2);                       // max locals
        o.writeInt(code.length);
        o.write(code);
        o.writeShort(0);                       // exception table
        o.writeShort(0);                       // code attributes
        o.writeShort(0);                       // class attributes
        o.flush();
        return bytes.toByteArray();
    }

    /** Defines tgt.HugeRun and calls m on thread huge. */
    static void start() throws Exception {
        Class<?> k = MethodHandles.lookup().defineClass(generate());
        MethodHandle m = MethodHandles.lookup().findStatic(k, "m", MethodType.methodType(long.class, long.class));
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    Main.sink += (long) m.invokeExact(1L);
                    Thread.sleep(1);
                }
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }, "huge");
        t.setDaemon(true);
        t.start();
    }
}

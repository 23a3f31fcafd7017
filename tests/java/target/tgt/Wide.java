package tgt;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A wide plan: n generated classes tgt.Wd00000 .. in a binary tree, the
 * static method m(J)J of class i calling those of classes 2i+1 and 2i+2.
 * The entry method is tgt.Wd00000.m; planning it to depth 64 looks at
 * every class. Generated (class files of version 49, which need no stack
 * map frames) so that thousands of classes cost no sources.
 */
public final class Wide {
    private Wide() {
    }

    private static final class Loader extends ClassLoader {
        Loader() {
            super(Wide.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    private static String name(int i) {
        return String.format("tgt/Wd%05d", i);
    }

    /** The class file of class i of n. */
    private static byte[] generate(int i, int n) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream o = new DataOutputStream(bytes);
        boolean calls = 2 * i + 2 < n;
        o.writeInt(0xCAFEBABE);
        o.writeShort(0);
        o.writeShort(49);
        o.writeShort(calls ? 15 : 8);          // constant pool count
        o.writeByte(1);
        o.writeUTF(name(i));                   // 1
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
        if (calls) {
            o.writeByte(12);
            o.writeShort(5);
            o.writeShort(6);                   // 8: m(J)J
            for (int k = 1; k <= 2; k++) {
                o.writeByte(1);
                o.writeUTF(name(2 * i + k));   // 9, 12
                o.writeByte(7);
                o.writeShort(6 + 3 * k);       // 10, 13
                o.writeByte(10);
                o.writeShort(7 + 3 * k);
                o.writeShort(8);               // 11, 14: Wd.m(J)J
            }
        }
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
        byte[] code = calls
            ? new byte[] {0x1e, (byte) 0xb8, 0, 11, 0x1e, (byte) 0xb8, 0, 14, 0x61, (byte) 0xad}
            : new byte[] {0x1e, (byte) 0xad};  // lload_0 invokestatic ... ladd lreturn
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

    /** Defines the n classes; the entry calls tgt.Wd00000.m. */
    static Runnable entry(int n) throws Exception {
        Loader l = new Loader();
        Class<?> root = null;
        for (int i = n - 1; i >= 0; i--) {
            root = l.define(name(i).replace('/', '.'), generate(i, n));
        }
        MethodHandle m = MethodHandles.lookup().findStatic(root, "m", MethodType.methodType(long.class, long.class));
        return () -> {
            try {
                Main.sink += (long) m.invokeExact(1L);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }
}

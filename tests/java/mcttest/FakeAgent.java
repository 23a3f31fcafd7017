package mcttest;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A JVM serving its own agent socket, /tmp/.mcalltree-PID/agent.sock, as an
 * agent of another version of mcalltree, or a broken one, would: the client
 * believes only a socket that the JVM itself serves, so a foreign agent can
 * only be played from inside the JVM. Every request but `trace` is answered
 * with a hello in frames of version V that says protocol P. A `trace`
 * request is answered as MODE says (none: with the hello too), and the JVM
 * prints "trace request" first:
 * <ul>
 * <li>silent: not at all;</li>
 * <li>badjson: a plan, then a frame holding no JSON;</li>
 * <li>cut: a plan, then half a frame, and the connection closed;</li>
 * <li>stall: a plan; once the client sends its stop, half a frame, then
 * nothing (the JVM prints "stalled").</li>
 * </ul>
 * After that the connection stays open until the client closes it. Usage:
 * mcttest.FakeAgent V P [MODE]; prints READY once it listens.
 */
public final class FakeAgent {
    private FakeAgent() {
    }

    private static final String PLAN = "{\"type\":\"plan\",\"methods\":[{\"class\":\"mcttest.FakeAgent\","
            + "\"method\":\"main\",\"desc\":\"([Ljava/lang/String;)V\",\"level\":1,"
            + "\"status\":\"instrumented\",\"root\":true,\"id\":0}],\"summary\":{\"instrumented\":1,"
            + "\"pending\":0,\"skipped\":0,\"failed\":0,\"excluded\":0,\"planned\":0,\"capped\":false,"
            + "\"plan_ms\":1.0,\"instrument_ms\":1.0,\"loaded_classes\":1,\"clock\":\"monotonic\"}}";

    private static int frameVersion;

    /** Writes a frame header saying len bytes follow, and then body. */
    private static void send(SocketChannel c, int len, byte[] body) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(8 + body.length);
        frame.put((byte) 'M').put((byte) 'C').put((byte) 'T').put((byte) frameVersion);
        frame.putInt(len).put(body).flip();
        while (frame.hasRemaining()) {
            c.write(frame);
        }
    }

    private static void send(SocketChannel c, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        send(c, b.length, b);
    }

    /** Reads until the client closes the connection. */
    private static void drain(SocketChannel c) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4096);
        while (c.read(b) >= 0) {
            b.clear();
        }
    }

    public static void main(String[] args) throws IOException {
        frameVersion = Integer.parseInt(args[0]);
        int protocol = Integer.parseInt(args[1]);
        String mode = args.length > 2 ? args[2] : "none";
        long pid = ProcessHandle.current().pid();
        Path dir = Path.of("/tmp/.mcalltree-" + pid);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        String hello = "{\"type\":\"hello\",\"protocol\":" + protocol + ",\"agent_version\":\"9.9.9\","
                + "\"pid\":" + pid + ",\"jvm\":{\"name\":\"x\",\"vendor\":\"x\",\"version\":\"x\"},"
                + "\"session\":null,\"instrumented_classes\":0}";
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("agent.sock")));
        System.out.println("READY");
        System.out.flush();
        while (true) {
            try (SocketChannel c = server.accept()) {
                ByteBuffer req = ByteBuffer.allocate(4096);
                c.read(req);
                String text = new String(req.array(), 0, req.position(), StandardCharsets.UTF_8);
                if (!text.contains("\"type\":\"trace\"") || mode.equals("none")) {
                    send(c, hello);
                    continue;
                }
                System.out.println("trace request");
                System.out.flush();
                switch (mode) {
                    case "silent":
                        break;
                    case "badjson":
                        send(c, PLAN);
                        send(c, "{not json");
                        break;
                    case "stall":
                        send(c, PLAN);
                        c.read(ByteBuffer.allocate(4096));
                        send(c, 100, "{\"type\":\"en".getBytes(StandardCharsets.UTF_8));
                        System.out.println("stalled");
                        System.out.flush();
                        break;
                    case "cut":
                        send(c, PLAN);
                        send(c, 100, "{\"type\":\"ca".getBytes(StandardCharsets.UTF_8));
                        continue;
                    default:
                        throw new IllegalArgumentException("unknown mode " + mode);
                }
                drain(c);
            } catch (IOException e) {
                System.out.println("connection: " + e);
            }
        }
    }
}

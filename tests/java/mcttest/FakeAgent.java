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
 * agent of another version of mcalltree would: the client believes only a
 * socket that the JVM itself serves, so a foreign agent can only be played
 * from inside the JVM. Every connection is answered with a hello in frames
 * of version V that says protocol P. Usage: mcttest.FakeAgent V P; prints
 * READY once it listens.
 */
public final class FakeAgent {
    private FakeAgent() {
    }

    public static void main(String[] args) throws IOException {
        int frameVersion = Integer.parseInt(args[0]);
        int protocol = Integer.parseInt(args[1]);
        long pid = ProcessHandle.current().pid();
        Path dir = Path.of("/tmp/.mcalltree-" + pid);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        byte[] body = ("{\"type\":\"hello\",\"protocol\":" + protocol + ",\"agent_version\":\"9.9.9\","
                + "\"pid\":" + pid + ",\"jvm\":{\"name\":\"x\",\"vendor\":\"x\",\"version\":\"x\"},"
                + "\"session\":null,\"instrumented_classes\":0}").getBytes(StandardCharsets.UTF_8);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("agent.sock")));
        System.out.println("READY");
        System.out.flush();
        while (true) {
            try (SocketChannel c = server.accept()) {
                c.read(ByteBuffer.allocate(4096));
                ByteBuffer frame = ByteBuffer.allocate(8 + body.length);
                frame.put((byte) 'M').put((byte) 'C').put((byte) 'T').put((byte) frameVersion);
                frame.putInt(body.length).put(body).flip();
                while (frame.hasRemaining()) {
                    c.write(frame);
                }
            }
        }
    }
}

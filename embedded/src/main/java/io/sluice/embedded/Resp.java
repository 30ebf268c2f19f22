package io.sluice.embedded;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Just enough of the Redis protocol (RESP) to ask a server whether it is up and to form a cluster:
 * one command over a plain socket, one reply. This module must not depend on a Redis client
 * library at compile scope, and readiness checks should not be hidden behind a client's reconnect
 * logic.
 */
public final class Resp {

    private static final Duration IO_TIMEOUT = Duration.ofSeconds(2);

    private Resp() {
    }

    /**
     * Sends {@code command} (words separated by single spaces, for example {@code PING} or
     * {@code CLUSTER INFO}) to 127.0.0.1:{@code port} and returns the reply: the text of a simple
     * string or bulk string, the digits of an integer.
     *
     * @throws IOException if the connection fails or the server answers with an error
     */
    static String call(int port, String command) throws IOException {
        return call(port, null, command);
    }

    /**
     * As {@link #call(int, String)}, first authenticating with {@code password} (the
     * {@code requirepass} of the default user) when it is not null.
     */
    static String call(int port, String password, String command) throws IOException {
        return call(port, password, command.split(" "));
    }

    /**
     * Sends one command of any length, its {@code arguments} as a RESP array, so they may hold
     * any character (a password) and be many (the 5,461 slots of {@code CLUSTER ADDSLOTS}), and
     * returns the reply as {@link #call(int, String)} does. Authenticates first with
     * {@code password} when it is not null.
     */
    static String call(int port, String password, String... arguments) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) IO_TIMEOUT.toMillis());
            socket.setSoTimeout((int) IO_TIMEOUT.toMillis());
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            BufferedInputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                writeArray(out, "AUTH", password);
                readReply(in);
            }
            writeArray(out, arguments);
            return readReply(in);
        }
    }

    private static void writeArray(OutputStream out, String... arguments) throws IOException {
        out.write(("*" + arguments.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String argument : arguments) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }

    /** True if a server on {@code port} answers {@code PING} with {@code +PONG}. */
    public static boolean answersPing(int port) {
        return answersPing(port, null);
    }

    /** As {@link #answersPing(int)}, authenticating first when {@code password} is not null. */
    public static boolean answersPing(int port, String password) {
        try {
            return "PONG".equals(call(port, password, "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    private static String readReply(InputStream in) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("Empty reply from Redis");
        }
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
            case ':':
                return rest;
            case '-':
                throw new IOException("Redis answered with an error: " + rest);
            case '$':
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] body = in.readNBytes(length + 2); // the payload and its trailing CRLF
                if (body.length < length + 2) {
                    throw new IOException("Redis closed the connection in the middle of a reply");
                }
                return new String(body, 0, length, StandardCharsets.UTF_8);
            default:
                throw new IOException("Unsupported Redis reply type: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        int current;
        while ((current = in.read()) != -1) {
            if (previous == '\r' && current == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(current);
            previous = current;
        }
        throw new IOException("Redis closed the connection before a complete reply");
    }
}

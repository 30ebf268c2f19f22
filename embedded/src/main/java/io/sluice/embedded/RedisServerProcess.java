package io.sluice.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} running as a child process of this JVM on a free loopback port, with
 * no persistence, in its own temporary directory.
 *
 * <p>Why a child process and not an embedded Java Redis: Sluice's limiter is Lua run by Redis
 * itself, and its fail-over paths are tested by stopping and restarting the server. Only the real
 * binary gives both. The server is restartable on the same port ({@link #stop()} then
 * {@link #restart()}), so a client configured with {@link #uri()} can reconnect to it.
 *
 * <p>Readiness is checked with a plain socket ({@code PING} → {@code +PONG}) and the answering
 * server's {@code process_id} must be this child's pid, so a server that some other process
 * started on the same port is never mistaken for ours. The server's output goes to
 * {@link #logFile()}. A JVM shutdown hook kills any server still running, so an aborted test run
 * does not leave {@code redis-server} behind.
 *
 * <p>Thread-safe: lifecycle methods are synchronized.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServerProcess.class);

    static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int BIND_ATTEMPTS = 5;
    private static final int LOG_TAIL_CHARS = 2_000;

    private final Path binary;
    private final int port;
    private final Path directory;
    private final Path logFile;
    private final IntFunction<List<String>> extraArguments;
    /** The default user's password ({@code --requirepass}); null for none. */
    private final String password;

    private Process process;
    private boolean closed;
    private volatile boolean shared;

    private RedisServerProcess(Path binary, int port, IntFunction<List<String>> extraArguments,
            String password) {
        this.binary = binary;
        this.port = port;
        this.extraArguments = extraArguments;
        this.password = password;
        this.directory = Directories.createTemp("sluice-redis-" + port + "-");
        this.logFile = directory.resolve("redis-server.log");
        ChildProcesses.register(directory);
    }

    /**
     * Starts {@code redis-server} on a free port of 127.0.0.1 and returns once it answers PING.
     *
     * @throws IllegalStateException if {@code redis-server} is not installed (the message says how
     *     to install it) or does not come up within 10 seconds
     */
    public static RedisServerProcess start() {
        return startOnFreePort(FreePorts::loopback, port -> List.of());
    }

    /**
     * As {@link #start()}, with a password for the default user ({@code redis-server --requirepass}):
     * a client must {@code AUTH} before any command. {@link #uri()} stays without the password;
     * {@link #uriWithPassword()} has it.
     */
    public static RedisServerProcess startWithPassword(String password) {
        return startOnFreePort(FreePorts::loopback, port -> List.of(), password);
    }

    /**
     * Starts a server on a port from {@code freePort}, with {@code extraArguments(port)} appended
     * to the command line. Another process can take a port between the probe and the bind, so a
     * failed bind is retried with a new port and a new directory.
     */
    static RedisServerProcess startOnFreePort(IntSupplier freePort, IntFunction<List<String>> extraArguments) {
        return startOnFreePort(freePort, extraArguments, null);
    }

    /** As above, the server requiring {@code password} (null for none). */
    static RedisServerProcess startOnFreePort(IntSupplier freePort, IntFunction<List<String>> extraArguments,
            String password) {
        Path binary = RedisBinaries.server();
        PortInUseException lastRace = null;
        for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
            RedisServerProcess redis = new RedisServerProcess(binary, freePort.getAsInt(), extraArguments, password);
            try {
                redis.launch();
                return redis;
            } catch (PortInUseException e) {
                lastRace = e;
                log.debug("Port {} was taken before redis-server could bind it; trying another", redis.port);
                redis.closeNow();
            } catch (RuntimeException e) {
                redis.closeNow();
                throw e;
            }
        }
        throw new IllegalStateException("Could not start redis-server: another process took each of "
                + BIND_ATTEMPTS + " free ports before redis-server could bind it", lastRace);
    }

    /** The loopback port this server listens on; it stays the same across {@link #restart()}. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}, the form Sluice's {@code redis.uri} setting takes. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /**
     * {@code redis://:<password>@127.0.0.1:<port>} (percent-encoded) for a server started with a
     * password; the same as {@link #uri()} without one.
     */
    public String uriWithPassword() {
        return password == null ? uri() : "redis://:" + URLEncoder.encode(password,
                StandardCharsets.UTF_8).replace("+", "%20") + "@127.0.0.1:" + port;
    }

    /** The password the server requires, or null. */
    String password() {
        return password;
    }

    /** The file that receives the server's stdout and stderr, kept across restarts. */
    public Path logFile() {
        return logFile;
    }

    /** True if the child process is alive (it may have been stopped, killed or have crashed). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Stops the server the way an operator would: SIGTERM, then waits up to
     * 10 seconds before SIGKILL. Connections to {@link #port()} are
     * refused afterwards. Does nothing if the server is not running.
     */
    public synchronized void stop() {
        requireOwned("stop");
        stopProcess();
    }

    /**
     * Starts the server again on the same port, so that clients configured with {@link #uri()}
     * find it again; stops it first if it is running. Data is not kept (no persistence).
     * (Named {@code restart} because Java cannot have a static and an instance {@code start()}.)
     *
     * @throws IllegalStateException if another process took the port meanwhile, or the server
     *     does not come up within 10 seconds
     */
    public synchronized void restart() {
        requireOwned("restart");
        if (closed) {
            throw new IllegalStateException("This RedisServerProcess on port " + port + " is closed; start a new one");
        }
        stopProcess();
        try {
            launch();
        } catch (PortInUseException e) {
            throw new IllegalStateException("Cannot restart redis-server: port " + port
                    + " is now used by another process", e);
        }
    }

    /** Kills the server with SIGKILL, like a crash: no shutdown, connections are cut. */
    public synchronized void kill() {
        requireOwned("kill");
        if (process != null) {
            destroyForciblyAndWait(process);
            process = null;
        }
    }

    /** Stops the server and deletes its directory. Idempotent. */
    @Override
    public void close() {
        if (shared) {
            log.debug("Ignoring close() of the shared Redis; RealServers closes it when the test plan ends");
            return;
        }
        closeNow();
    }

    @Override
    public synchronized String toString() {
        return "redis-server 127.0.0.1:" + port + (isRunning() ? " (running)" : " (stopped)");
    }

    /** Marks this server as the one {@code RealServers} (the test kit) shares: tests may use it but not stop it. */
    public void markShared() {
        shared = true;
    }

    /** Stops and deletes, even when shared: for the owner of a shared server. */
    public synchronized void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        stopProcess();
        Directories.deleteRecursively(directory);
        ChildProcesses.unregister(directory);
    }

    /** The server's working directory, for the cluster's own files. */
    Path directory() {
        return directory;
    }

    private void requireOwned(String operation) {
        if (shared) {
            throw new UnsupportedOperationException("Cannot " + operation + " the Redis shared by all tests of"
                    + " this JVM (from RealServers): other tests use it. Start your own with"
                    + " RedisServerProcess.start() to " + operation + " it.");
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--port", Integer.toString(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", directory.toString(),
                "--daemonize", "no",
                "--protected-mode", "yes"));
        command.addAll(extraArguments.apply(port));
        if (password != null) {
            // Through stdin rather than the command line, where `ps` would show it: redis-server
            // reads a config file named "-" from stdin, after its arguments.
            command.add("-");
        }
        long logStart = sizeOf(logFile);
        long startNanos = System.nanoTime();
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()))
                    .start();
            try (var stdin = started.getOutputStream()) {
                if (password != null) {
                    String quoted = "\"" + password.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
                    stdin.write(("requirepass " + quoted + "\nmasterauth " + quoted + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + binary, e);
        }
        ChildProcesses.register(started);
        try {
            awaitReady(started, logStart);
        } catch (RuntimeException e) {
            destroyForciblyAndWait(started);
            throw e;
        }
        process = started;
        log.info("redis-server ready on 127.0.0.1:{} (pid {}) in {} ms", port, started.pid(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    private void awaitReady(Process started, long logStart) {
        Deadline deadline = Deadline.after(READY_TIMEOUT);
        while (true) {
            if (!started.isAlive()) {
                String output = logSince(logStart);
                if (output.contains("Address already in use")) {
                    throw new PortInUseException(port);
                }
                throw new IllegalStateException("redis-server exited with code " + started.exitValue()
                        + " before answering PING on 127.0.0.1:" + port + ". Its output:\n" + output);
            }
            if (Resp.answersPing(port, password) && isServedBy(started)) {
                return;
            }
            if (deadline.expired()) {
                throw new IllegalStateException("redis-server (pid " + started.pid() + ") did not answer PING on 127.0.0.1:"
                        + port + " within " + deadline.timeout().toSeconds() + " s. Its output:\n" + logSince(logStart));
            }
            deadline.pause();
        }
    }

    /** True if the server answering on {@link #port} is {@code started}, not some other process. */
    private boolean isServedBy(Process started) {
        try {
            String info = Resp.call(port, password, "INFO server");
            return info != null && info.contains("process_id:" + started.pid() + "\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    private void stopProcess() {
        if (process == null) {
            return;
        }
        Process stopping = process;
        process = null;
        stopping.destroy(); // SIGTERM: redis-server shuts down cleanly and closes its listener
        try {
            if (!stopping.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("redis-server on port {} ignored SIGTERM for {} s; killing it", port, STOP_TIMEOUT.toSeconds());
                destroyForciblyAndWait(stopping);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyForciblyAndWait(stopping);
        }
        ChildProcesses.unregister(stopping);
    }

    private static void destroyForciblyAndWait(Process doomed) {
        doomed.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                doomed.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // SIGKILL cannot be ignored: the wait is short, finish it
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        ChildProcesses.unregister(doomed);
    }

    private String logSince(long offset) {
        try {
            byte[] bytes = Files.readAllBytes(logFile);
            String text = new String(bytes, (int) Math.min(offset, bytes.length),
                    (int) Math.max(0, bytes.length - offset), StandardCharsets.UTF_8);
            return text.length() <= LOG_TAIL_CHARS ? text : "..." + text.substring(text.length() - LOG_TAIL_CHARS);
        } catch (IOException e) {
            return "(could not read " + logFile + ": " + e + ")";
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** redis-server could not bind its port: someone took it after we found it free. */
    private static final class PortInUseException extends IllegalStateException {
        PortInUseException(int port) {
            super("Port " + port + " is already in use");
        }
    }
}

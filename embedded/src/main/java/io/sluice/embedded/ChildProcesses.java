package io.sluice.embedded;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The safety net for an aborted run: every child process and temporary directory created here is
 * registered, and one JVM shutdown hook kills what is still alive and deletes what is still on
 * disk. Normal code paths unregister as they stop things, so the hook usually has nothing to do.
 * It cannot help against SIGKILL of the JVM itself; nothing in the JVM can.
 */
final class ChildProcesses {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::cleanUp, "sluice-embedded-cleanup"));
    }

    private ChildProcesses() {
    }

    static void register(Process process) {
        PROCESSES.add(process);
    }

    static void unregister(Process process) {
        PROCESSES.remove(process);
    }

    static void register(Path directory) {
        DIRECTORIES.add(directory);
    }

    static void unregister(Path directory) {
        DIRECTORIES.remove(directory);
    }

    /** Forcibly, because the JVM is exiting and there is no time for a graceful stop. */
    private static void cleanUp() {
        for (Process process : PROCESSES) {
            process.destroyForcibly();
        }
        for (Process process : PROCESSES) {
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Path directory : DIRECTORIES) {
            try {
                Directories.deleteRecursively(directory);
            } catch (RuntimeException ignored) {
                // Best effort while the JVM exits; a temp directory left behind is harmless.
            }
        }
    }
}

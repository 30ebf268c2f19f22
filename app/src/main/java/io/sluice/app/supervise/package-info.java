/**
 * Keeping a role running inside the process: a role whose loop stopped is closed and started
 * again, with backoff ({@code RestartPolicy}, the pure decision), until it fails too often in a
 * window, when the process exits for its orchestrator to restart it.
 */
package io.sluice.app.supervise;

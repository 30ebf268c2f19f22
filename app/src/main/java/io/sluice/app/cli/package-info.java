/**
 * The {@code sluice} command line (picocli): one class per command ({@code run}, the roles, {@code
 * topics}, {@code produce}, {@code verify}, {@code status}, {@code pause}, {@code tenants}, {@code
 * dlq}, the lab's), the {@code --config} option they share, and the lifecycle of a long-running
 * command. Commands parse and print; the work is in the packages they call.
 */
package io.sluice.app.cli;

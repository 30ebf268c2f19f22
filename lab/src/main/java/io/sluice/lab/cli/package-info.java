/**
 * The lab's commands: {@code demo}, {@code bench} and {@code chaos}, for the {@code sluice}
 * command line of the lab's jar.
 */
package io.sluice.lab.cli;

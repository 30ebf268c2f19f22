/**
 * How the application logs: the logging configuration applied from the YAML file's {@code
 * logging:} block, and the encoders of a log line (plain text, or one JSON object a line).
 */
package io.sluice.app.logging;

/**
 * Validating a work event on the hot path, as {@code work-event.schema.json} does and against the
 * configuration: its id, path, attributes and deadline, each rule a small class, with a detail
 * that names the field.
 */
package io.sluice.schemas.validation;

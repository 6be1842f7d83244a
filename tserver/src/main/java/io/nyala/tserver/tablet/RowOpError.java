package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;

/** A row of a batch that could not be applied: its position in the batch and why. */
public record RowOpError(int rowIndex, NyalaException error) {}

package io.nyala.common.env;

/** What opening a file for writing does when the file exists or not. */
public enum OpenMode {
  /** {@link #CREATE_OR_TRUNCATE} for writable files, {@link #CREATE_OR_OPEN} for read-write. */
  DEFAULT,
  /** Create; ALREADY_PRESENT if the file exists. */
  CREATE_NEW,
  /** Create, or empty an existing file. */
  CREATE_OR_TRUNCATE,
  /** Open an existing file (writable files append); NOT_FOUND if missing. */
  OPEN_EXISTING,
  /** Open an existing file or create an empty one. */
  CREATE_OR_OPEN
}

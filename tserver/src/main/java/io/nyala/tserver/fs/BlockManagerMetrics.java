package io.nyala.tserver.fs;

/**
 * Metrics of a block manager (docs/architecture.md, "Block managers"). {@code holesPunched} counts
 * deleted blocks whose range was really punched and {@code bytesPreallocated} the bytes
 * {@code fallocate} really reserved, so a file system that silently refuses shows as zero.
 * {@code failedDataDirs} and {@code noSpaceErrors} are what {@link DataDirFailures} saw
 * (docs/data-safety.md, "Disk faults").
 */
public record BlockManagerMetrics(long blocksUnderManagement, long bytesUnderManagement,
    long containers, long fullContainers, long holesPunched, long deadContainersDeleted,
    long bytesPreallocated, long failedDataDirs, long noSpaceErrors) {}

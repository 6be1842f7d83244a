/** The {@code nyala} command line: local-cluster, table tools, perf drivers, server mains. */
package io.nyala.minicluster.cli;

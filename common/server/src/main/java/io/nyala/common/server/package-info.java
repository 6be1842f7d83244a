/** What every server shares: flags, directories, listeners and their lifecycle. */
package io.nyala.common.server;

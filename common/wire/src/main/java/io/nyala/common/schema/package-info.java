/** Table schemas, column types and rows being built; shared by client and servers. */
package io.nyala.common.schema;

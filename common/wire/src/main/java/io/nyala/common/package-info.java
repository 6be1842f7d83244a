/** Nyala's shared foundation: the error type, addresses; subpackages hold the rest. */
package io.nyala.common;

/** Each server's HTTP listener: health, Prometheus metrics and small HTML status pages. */
package io.nyala.common.web;

/**
 * The tablet server registry: descriptors per uuid, liveness by heartbeat age, and the admin
 * calls the master sends to tservers. Knows nothing about the catalog.
 */
package io.nyala.master.tsmanager;

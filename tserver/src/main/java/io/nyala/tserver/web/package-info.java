/**
 * The tablet server's HTTP pages: {@code StatusPage} (home, counts only) and
 * {@code TabletsPage}, which lists tablet ids and so is served only with
 * {@code --webserver_expose_tablet_ids}. A package of their own rather than part of
 * {@code service}: pages are a read-only view for humans, served by the common web server,
 * while {@code service} is the gRPC face that changes state. Pages read the server's public
 * accessors and the replicas' status; they must not change anything.
 */
package io.nyala.tserver.web;

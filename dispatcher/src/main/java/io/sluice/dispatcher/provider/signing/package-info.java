/**
 * Signing a call's body so its receiver can check it came from Sluice: the Standard Webhooks
 * scheme (an id, a timestamp and an HMAC over both and the body).
 */
package io.sluice.dispatcher.provider.signing;

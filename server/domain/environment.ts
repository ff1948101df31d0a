/** A credential's environment; it decides what is served, never the address. */
export type Environment = 'sandbox' | 'live';

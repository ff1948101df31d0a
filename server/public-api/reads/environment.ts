/** The public surface shows the sandbox environment's inventory (the spec says so on each read). */
export const PUBLIC_ENVIRONMENT = 'sandbox' as const;

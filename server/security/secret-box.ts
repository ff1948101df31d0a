// Secrets that must be recoverable (credential secrets verify HMACs; webhook secrets sign
// deliveries) are stored encrypted with AES-256-GCM under the master key, never in clear.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function secretBox(masterKey: Buffer): SecretBox {
  // A sub-key per purpose, so the same master key never encrypts and signs with one key.
  const key = createHmac('sha256', masterKey).update('secret-box').digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('Unreadable sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A key derived from the master key for one purpose (quote tokens, cursors, checkout tokens). */
export function derivedKey(masterKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', masterKey).update(`purpose:${purpose}`).digest();
}

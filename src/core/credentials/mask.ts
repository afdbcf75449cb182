/** How every command shows a secret it must not print (one definition, shared with the emulator's console). */
export { maskSecret } from '../../shared/mask.js';

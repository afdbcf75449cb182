declare const __LANYARD_VERSION__: string | undefined;

/** The package version, injected at build time. */
export const VERSION: string = typeof __LANYARD_VERSION__ === 'string' ? __LANYARD_VERSION__ : '0.0.0-dev';

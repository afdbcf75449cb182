// The platform packages of @napi-rs/keyring ship a native module and no types;
// keychain-store.ts loads them directly (see platformBinding there).
declare module '@napi-rs/keyring-linux-x64-gnu';
declare module '@napi-rs/keyring-linux-arm64-gnu';

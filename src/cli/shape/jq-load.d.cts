import type { JqRuntime } from 'jq-web';
export declare function runtime(): Promise<JqRuntime>;

export interface Layer {
  name: string;
  folders: string[];
}
export declare const LAYERS: Layer[];
export declare const ALLOWED_UPWARD: Record<string, string[]>;
export declare const TEMPORARY_UPWARD: Record<string, string[]>;

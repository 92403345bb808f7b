// Equipment: the generic resource client plus its rentals sub-collection.
import type { Transport } from "../core/transport.ts";
import type {
  Equipment,
  EquipmentCreate,
  EquipmentFilters,
  EquipmentUpdate,
  Rental,
  RentalCreate,
  RentalFilters,
  RentalUpdate,
} from "../generated/types.ts";
import { ResourceClient } from "./resource-client.ts";

/** The rentals of one piece of equipment: list, get, create, and update (`billed: true` bills one). */
export type RentalsClient = Pick<
  ResourceClient<Rental, RentalCreate, RentalUpdate, RentalFilters>,
  "list" | "listPage" | "get" | "create" | "update"
>;

/** Equipment CRUD, and `rentals(id)` for one item's rentals. */
export class EquipmentClient extends ResourceClient<Equipment, EquipmentCreate, EquipmentUpdate, EquipmentFilters> {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    super(transport, "/v1/equipment");
    this.#transport = transport;
  }

  /** The rentals of equipment `equipmentId`. */
  rentals(equipmentId: number): RentalsClient {
    return new ResourceClient(this.#transport, `/v1/equipment/${encodeURIComponent(equipmentId)}/rentals`);
  }
}

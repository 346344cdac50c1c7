export { adapterContract, type ContractHarness, type ContractResponse } from './contract.ts'
